#include "agent/runtime/runtime_factory.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/vm/vm_runtime.h"
#include "common/enum_text.h"
#include "common/kernel_names.h"
#include "common/status_macros.h"
#include "common/synthetic_dataset.h"

namespace powersweep {
namespace {

// The directory a run reads its data set from; "" for synthetic data and
// kernels (made in memory; a kernel's dataset is its shape) and for a
// data set the catalog does not know (BuildWorkloadArgv refuses it).
std::string DatasetDir(const Catalog& catalog, const v1::RunSpec& spec) {
  auto dataset = catalog.datasets.find(spec.workload().dataset());
  if (IsKernelName(spec.workload().model()) ||
      dataset == catalog.datasets.end() ||
      IsSyntheticDataset(dataset->first)) {
    return "";
  }
  return dataset->second;
}

// A vm run's data set: from its disk image when the agent makes them,
// else over 9p; nullopt without a data set.
absl::StatusOr<std::optional<VmDataMount>> DataMount(const VmSetup& vms,
                                                     const std::string& dir) {
  if (dir.empty()) return std::optional<VmDataMount>();
  VmDataMount mount;
  mount.path = dir;
  if (vms.data_disks != nullptr) {
    PS_ASSIGN_OR_RETURN(mount.disk, vms.data_disks->DiskOf(dir));
  }
  return std::optional<VmDataMount>(mount);
}

}  // namespace

RunRuntimeFactory MakeRuntimeFactory(Clock* clock, const Catalog* catalog,
                                     ContainerSetup containers,
                                     VmSetup vms) {
  return [clock, catalog, containers = std::move(containers),
          vms = std::move(vms)](
             const v1::RunSpec& spec,
             int tenant) -> absl::StatusOr<std::unique_ptr<Runtime>> {
    if (RunsInVm(spec.runtime()) && !vms.enabled) {
      return absl::FailedPreconditionError(absl::StrCat(
          "runtime: ", RuntimeText(spec.runtime()),
          " runs are not available on this agent (no QEMU, guest image or "
          "usable accelerator)"));
    }
    const std::string dataset_dir = DatasetDir(*catalog, spec);
    if (spec.runtime() == v1::RUNTIME_VM) {
      PS_ASSIGN_OR_RETURN(std::optional<VmDataMount> data,
                          DataMount(vms, dataset_dir));
      return std::make_unique<VmRuntime>(clock, vms.config, spec.vm(),
                                         vms.default_vcpus, std::nullopt,
                                         std::move(data));
    }
    if (!RunsInContainer(spec.runtime())) {
      return std::make_unique<NativeRuntime>(clock);
    }
    if (containers.engine == nullptr ||
        (spec.runtime() == v1::RUNTIME_CONTAINER_IN_VM &&
         vms.archives == nullptr)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "runtime: ", RuntimeText(spec.runtime()),
          " runs are not available on this agent (no container engine)"));
    }
    ContainerRequest request;
    request.image = spec.container_image();
    if (!dataset_dir.empty()) request.read_only_mounts.push_back(dataset_dir);
    request.device_id = containers.device_id;
    request.run_id = spec.run_id();
    request.attempt = spec.attempt();
    request.tenant = tenant;
    if (spec.runtime() == v1::RUNTIME_CONTAINER) {
      return std::make_unique<DockerRuntime>(containers.config, request,
                                             containers.engine, clock);
    }
    // container_in_vm: the image the allowlist allows, saved for the guest
    // (once per image) before the run starts.
    VmContainerRun run;
    run.config = containers.config;
    PS_ASSIGN_OR_RETURN(run.image_id,
                        ResolveAllowedImage(containers.config,
                                            containers.engine, request.image));
    PS_ASSIGN_OR_RETURN(run.image_archive,
                        vms.archives->ArchiveOf(run.image_id));
    run.request = std::move(request);
    PS_ASSIGN_OR_RETURN(std::optional<VmDataMount> data,
                        DataMount(vms, dataset_dir));
    return std::make_unique<VmRuntime>(clock, vms.config, spec.vm(),
                                       vms.default_vcpus, std::move(run),
                                       std::move(data));
  };
}

}  // namespace powersweep
