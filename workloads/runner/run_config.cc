#include "workloads/runner/run_config.h"

#include <fcntl.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "workloads/models/catalog.h"

namespace powersweep {
namespace {

absl::Status Bad(absl::string_view flag, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", reason));
}

}  // namespace

absl::StatusOr<v1::Task> ParseTask(absl::string_view task) {
  if (task == "train") return v1::TASK_TRAIN;
  if (task == "infer") return v1::TASK_INFER;
  return Bad("task", absl::StrCat("'", task, "' is not train or infer"));
}

absl::Status ValidateRunConfig(const RunConfig& c) {
  std::vector<std::string> models = KnownModels();
  if (std::find(models.begin(), models.end(), c.model) == models.end()) {
    return Bad("model", absl::StrCat("unknown model '", c.model, "' (known: ",
                                     absl::StrJoin(models, ", "), ")"));
  }
  if (c.dataset_path.empty()) {
    return Bad("dataset-path",
               "required (the directory holding the IDX files)");
  }
  if (c.task != v1::TASK_TRAIN && c.task != v1::TASK_INFER) {
    return Bad("task", "must be train or infer");
  }
  if (c.batch_size < 1) {
    return Bad("batch-size",
               absl::StrCat("must be at least 1, got ", c.batch_size));
  }
  if (c.workers < 0 || c.workers > 256) {
    return Bad("workers",
               absl::StrCat("must be within 0..256, got ", c.workers));
  }
  if (c.epochs < 0) {
    return Bad("epochs", absl::StrCat("must be >= 0, got ", c.epochs));
  }
  if (c.minibatches < 0) {
    return Bad("minibatches",
               absl::StrCat("must be >= 0, got ", c.minibatches));
  }
  if (!std::isfinite(c.duration_s) || c.duration_s < 0) {
    return Bad("duration-s", absl::StrCat("must be a finite number >= 0, got ",
                                          c.duration_s));
  }
  if (c.epochs == 0 && c.minibatches == 0 && c.duration_s == 0) {
    return Bad("epochs",
               "no stop condition: give at least one of --epochs, "
               "--minibatches, --duration-s greater than 0");
  }
  if (c.threads < 0 || c.threads > 1024) {
    return Bad("threads",
               absl::StrCat("must be within 0..1024, got ", c.threads));
  }
  if (c.records_fd < 0 || fcntl(c.records_fd, F_GETFD) == -1) {
    return Bad("records-fd",
               absl::StrCat(c.records_fd, " is not an open file descriptor"));
  }
  return absl::OkStatus();
}

}  // namespace powersweep
