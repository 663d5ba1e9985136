#include "agent/runtime/runtime_factory.h"

#include <memory>
#include <utility>

#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/vm/vm_runtime.h"
#include "common/kernel_names.h"
#include "common/synthetic_dataset.h"

namespace powersweep {

RunRuntimeFactory MakeRuntimeFactory(Clock* clock, const Catalog* catalog,
                                     ContainerSetup containers,
                                     VmSetup vms) {
  return [clock, catalog, containers = std::move(containers),
          vms = std::move(vms)](
             const v1::RunSpec& spec,
             int tenant) -> absl::StatusOr<std::unique_ptr<Runtime>> {
    if (spec.runtime() == v1::RUNTIME_VM) {
      if (!vms.enabled) {
        return absl::FailedPreconditionError(
            "runtime: vm runs are not available on this agent (no QEMU, "
            "guest image or usable accelerator)");
      }
      return std::make_unique<VmRuntime>(clock, vms.config, spec.vm(),
                                         vms.default_vcpus);
    }
    if (spec.runtime() != v1::RUNTIME_CONTAINER) {
      return std::make_unique<NativeRuntime>(clock);
    }
    if (containers.engine == nullptr) {
      return absl::FailedPreconditionError(
          "runtime: container runs are not available on this agent (no "
          "container engine)");
    }
    ContainerRequest request;
    request.image = spec.container_image();
    // Synthetic data is made in memory and a kernel's dataset is its
    // shape: nothing to mount for either.
    auto dataset = catalog->datasets.find(spec.workload().dataset());
    if (!IsKernelName(spec.workload().model()) &&
        dataset != catalog->datasets.end() &&
        !IsSyntheticDataset(dataset->first)) {
      request.read_only_mounts.push_back(dataset->second);
    }
    request.device_id = containers.device_id;
    request.run_id = spec.run_id();
    request.attempt = spec.attempt();
    request.tenant = tenant;
    return std::make_unique<DockerRuntime>(containers.config, request,
                                           containers.engine, clock);
  };
}

}  // namespace powersweep
