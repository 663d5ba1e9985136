// MemoryStore: the stored time and energy models.
#include "storage/memory_store.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {

absl::StatusOr<int64_t> MemoryStore::SaveModel(const v1::WorkloadModel& model) {
  if (model.device_class().empty() || model.model().empty()) {
    return absl::InvalidArgumentError(
        "SaveModel: device_class and model must be set");
  }
  absl::MutexLock lock(&mu_);
  if (sweeps_.count(model.sweep_id()) == 0) {
    return absl::NotFoundError(
        absl::StrCat("SaveModel: sweep ", model.sweep_id(), " not found"));
  }
  const int64_t id = next_model_id_++;
  v1::WorkloadModel& stored = models_[id];
  stored = model;
  stored.set_model_id(id);
  return id;
}

absl::StatusOr<std::vector<v1::WorkloadModel>> MemoryStore::ListModels() {
  absl::MutexLock lock(&mu_);
  std::vector<v1::WorkloadModel> out;
  for (const auto& [id, m] : models_) out.push_back(m);
  return out;
}

absl::StatusOr<v1::WorkloadModel> MemoryStore::GetModel(int64_t model_id) {
  absl::MutexLock lock(&mu_);
  auto it = models_.find(model_id);
  if (it == models_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "model ", model_id, " not found (`powersweep models` lists them)"));
  }
  return it->second;
}

}  // namespace powersweep
