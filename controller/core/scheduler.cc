#include "controller/core/scheduler.h"

#include <algorithm>

namespace powersweep {

bool CanServe(const v1::DeviceIdentity& identity,
              const v1::DeviceCapabilities& caps, const v1::RunSpec& spec) {
  if (spec.device_class() != identity.device_class()) return false;
  const auto& runtimes = caps.runtimes();
  if (std::find(runtimes.begin(), runtimes.end(), spec.runtime()) ==
      runtimes.end()) {
    return false;
  }
  // A baseload run starts no workload: no model or dataset to offer.
  if (spec.workload().task() == v1::TASK_BASELOAD) {
    return spec.power_mode().cpu_cores() <= caps.cpu_cores();
  }
  const auto& models = caps.models();
  if (std::find(models.begin(), models.end(), spec.workload().model()) ==
      models.end()) {
    return false;
  }
  const auto& datasets = caps.datasets();
  if (std::find(datasets.begin(), datasets.end(), spec.workload().dataset()) ==
      datasets.end()) {
    return false;
  }
  return spec.power_mode().cpu_cores() <= caps.cpu_cores();
}

int PickRun(const v1::DeviceIdentity& identity,
            const v1::DeviceCapabilities& caps,
            const std::vector<v1::RunSpec>& pending,
            const std::vector<bool>& taken) {
  for (size_t i = 0; i < pending.size(); ++i) {
    if (!taken[i] && CanServe(identity, caps, pending[i])) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace powersweep
