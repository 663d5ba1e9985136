#include "common/workload_label.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"

namespace powersweep {

std::string WorkloadLabel(const v1::WorkloadModel& m) {
  std::string s =
      absl::StrCat(m.model(), " ", m.dataset(), " ", TaskText(m.task()),
                   " batch ", m.batch_size(), " workers ", m.loader_workers(),
                   " on ", m.device_class());
  if (m.runtime() != v1::RUNTIME_UNSPECIFIED && m.runtime() != v1::RUNTIME_NATIVE) {
    absl::StrAppend(&s, " (", RuntimeText(m.runtime()), ")");
  }
  if (m.tenants() > 1) absl::StrAppend(&s, ", ", m.tenants(), " tenants");
  return s;
}

std::string SweepsText(const v1::WorkloadModel& m) {
  if (m.sweep_ids_size() <= 1) return absl::StrCat("sweep ", m.sweep_id());
  return absl::StrCat("sweeps ", absl::StrJoin(m.sweep_ids(), ", "));
}

}  // namespace powersweep
