// What the agent needs for vm runs, found at start-up from its flags
// (--qemu, --vm_image, --vm_accel): QEMU, the guest image and an
// accelerator. Without one of them the agent offers no vm runs and says
// why; an explicit --vm_image that is not there, or --vm_accel=kvm where
// KVM is unusable, is an error naming the flag.
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_VM_SETUP_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_VM_SETUP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/runtime/vm/data_disk.h"
#include "agent/runtime/vm/guest_image_archive.h"
#include "agent/runtime/vm/vm_runtime.h"

namespace powersweep {

struct VmSetup {
  bool enabled = false;  // false: no vm runs
  std::string why_not;   // when not enabled
  VmRuntimeConfig config;
  int default_vcpus = 1;  // the agent's cores
  // container_in_vm runs: where their images' archives are kept; null
  // without a container engine (then no container_in_vm runs).
  std::shared_ptr<GuestImageArchives> archives;
  // The data sets' disk images (--vm_data=blk, the default); null: the
  // guest reads data sets over 9p (--vm_data=9p).
  std::shared_ptr<VmDataDisks> data_disks;
};

struct VmOptions {
  std::string qemu = "/usr/bin/qemu-system-x86_64";  // --qemu
  std::string image;               // --vm_image; "" = the default dirs
  std::vector<std::string> default_image_dirs;
  std::string accel = "auto";      // --vm_accel
  std::string kvm_device = "/dev/kvm";
  std::string sys_module = "/sys/module";
  int cores = 1;
};

absl::StatusOr<VmSetup> DiscoverVms(const VmOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_VM_SETUP_H_
