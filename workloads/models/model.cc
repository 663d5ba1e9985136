#include "workloads/models/model.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "workloads/models/lenet5.h"

namespace powersweep {

absl::StatusOr<std::shared_ptr<Model>> MakeModel(const std::string& name) {
  if (name == "lenet5")
    return std::shared_ptr<Model>(std::make_shared<LeNet5>());
  return absl::InvalidArgumentError(
      absl::StrCat("unknown model '", name,
                   "' (known: ", absl::StrJoin(KnownModels(), ", "), ")"));
}

}  // namespace powersweep
