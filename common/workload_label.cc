#include "common/workload_label.h"

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"

namespace powersweep {

std::string WorkloadLabel(const v1::WorkloadModel& m) {
  std::string s =
      absl::StrCat(m.model(), " ", m.dataset(), " ", TaskText(m.task()),
                   " batch ", m.batch_size(), " workers ", m.loader_workers(),
                   " on ", m.device_class());
  if (m.runtime() == v1::RUNTIME_CONTAINER || m.runtime() == v1::RUNTIME_VM) {
    absl::StrAppend(&s, " (", RuntimeText(m.runtime()), ")");
  }
  if (m.tenants() > 1) absl::StrAppend(&s, ", ", m.tenants(), " tenants");
  return s;
}

}  // namespace powersweep
