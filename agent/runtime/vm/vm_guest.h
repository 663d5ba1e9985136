// The guest of the `vm` runtime (infra/vm/build-guest-image.sh): a kernel,
// an initramfs whose /init mounts the host's / read-only over virtio-9p, and
// GUEST, whose first line says what went in. FindVmGuest looks for it where
// the agent looks for its workload binary; the accelerator is chosen by
// ChooseVmAccel. Pure functions over the file system; thread-safe.
#ifndef POWERSWEEP_AGENT_RUNTIME_VM_VM_GUEST_H_
#define POWERSWEEP_AGENT_RUNTIME_VM_VM_GUEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

struct VmGuest {
  std::string dir;
  std::string kernel;   // dir/vmlinuz
  std::string initrd;   // dir/initrd.img
  // GUEST's first line: "kernel linux-image-6.1.0-56-amd64 6.1.192-2; ...".
  std::string description;
};

// The first of `dirs` holding vmlinuz, initrd.img and GUEST. NotFound
// naming every directory tried (and --vm_image) otherwise.
absl::StatusOr<VmGuest> FindVmGuest(const std::vector<std::string>& dirs);

// How the agent runs VMs: "kvm" when /dev/kvm can be opened and boots a
// stock kernel, "tcg" (QEMU's software emulation) when asked for.
struct VmAccel {
  std::string accel;   // "kvm" or "tcg"; "" = no vm runs
  std::string reason;  // why (shown in the capabilities and the results)
};

// `requested` is --vm_accel: "auto" takes kvm when usable, else offers no
// vm runs; "kvm" the same but an error when unusable; "tcg" always
// emulates. KVM is unusable without an openable `kvm_device` and where the
// kernel's KVM is PVM (`sys_module`/kvm_pvm exists: PVM boots only guest
// kernels built for it, and Debian's hangs in its decompressor).
// InvalidArgument naming --vm_accel for another value or an unusable kvm.
absl::StatusOr<VmAccel> ChooseVmAccel(const std::string& requested,
                                      const std::string& kvm_device,
                                      const std::string& sys_module);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_VM_VM_GUEST_H_
