// Catalog: the workloads this agent can run (models it knows and datasets it
// has on disk, by name). A plain value; read-only after construction, so
// safe to share between threads.
#ifndef POWERSWEEP_AGENT_RUN_CATALOG_H_
#define POWERSWEEP_AGENT_RUN_CATALOG_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/kernel_names.h"
#include "common/model_names.h"

namespace powersweep {

struct Catalog {
  // The models powersweep-workload builds (common/model_names.h) and the
  // kernels it runs (common/kernel_names.h). A kernel's "dataset" is its
  // shape (common/kernel_shape.h): no directory, not in `datasets`.
  std::set<std::string> models = DefaultModels();
  std::map<std::string, std::string> datasets;  // name -> directory
  // Whether runs may ask for RUNTIME_CONTAINER (a Docker engine answered
  // and images are allowed); native runs are always possible.
  bool containers = false;
  // Whether runs may ask for RUNTIME_VM (QEMU, a guest image and an
  // accelerator: agent/runtime/vm/vm_guest.h), and how VMs run ("kvm" or
  // "tcg") and why; why not when vms is false. RUNTIME_CONTAINER_IN_VM
  // needs both `vms` and `containers`.
  bool vms = false;
  std::string vm_accel;
  std::string vm_accel_reason;

  // kModelNames and kKernelNames.
  static std::set<std::string> DefaultModels();
  // The default dataset map of a fresh agent: fashion-mnist from Debian's
  // dataset-fashion-mnist, and `synthetic` (common/synthetic_dataset.h),
  // which every agent offers, with or without --dataset (its "path" is
  // the word synthetic, not a directory).
  static std::map<std::string, std::string> DefaultDatasets();
};

// Parses "--dataset" values: each entry is "NAME=PATH" or a comma-separated
// list of them. Later entries override earlier ones for the same name.
// InvalidArgument naming the entry when it has no '=' or an empty part, or
// when it names `synthetic` (reserved).
absl::StatusOr<std::map<std::string, std::string>> ParseDatasetFlags(
    const std::vector<std::string>& values);

// Parses a CPU list like "0-3", "0,2" or "0-1,4"; InvalidArgument naming the
// text on malformed input. Result sorted and unique.
absl::StatusOr<std::vector<int>> ParseCpuList(const std::string& text);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_CATALOG_H_
