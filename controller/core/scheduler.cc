#include "controller/core/scheduler.h"

#include <algorithm>

#include "common/kernel_names.h"

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
  // A kernel's dataset is its shape: any shape of a kernel it offers.
  const auto& datasets = caps.datasets();
  if (!IsKernelName(spec.workload().model()) &&
      std::find(datasets.begin(), datasets.end(), spec.workload().dataset()) ==
      datasets.end()) {
    return false;
  }
  return spec.power_mode().cpu_cores() <= caps.cpu_cores();
}

}  // namespace powersweep
