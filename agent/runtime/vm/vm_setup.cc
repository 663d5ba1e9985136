#include "agent/runtime/vm/vm_setup.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"

namespace powersweep {

absl::StatusOr<VmSetup> DiscoverVms(const VmOptions& o) {
  VmSetup setup;
  setup.default_vcpus = o.cores;
  setup.config.qemu = o.qemu;
  absl::StatusOr<VmAccel> accel =
      ChooseVmAccel(o.accel, o.kvm_device, o.sys_module);
  if (!accel.ok()) return accel.status();
  absl::StatusOr<VmGuest> guest = FindVmGuest(
      o.image.empty() ? o.default_image_dirs
                      : std::vector<std::string>{o.image});
  if (!guest.ok() && !o.image.empty()) return guest.status();
  if (access(o.qemu.c_str(), X_OK) != 0) {
    setup.why_not = absl::StrCat(o.qemu, " is not installed (apt-get install "
                                         "qemu-system-x86)");
  } else if (!guest.ok()) {
    setup.why_not = std::string(guest.status().message());
  } else if (accel->accel.empty()) {
    setup.why_not = accel->reason;
  } else {
    setup.enabled = true;
    setup.config.guest = *guest;
    setup.config.accel = *accel;
  }
  return setup;
}

}  // namespace powersweep
