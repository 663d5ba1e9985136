#include "agent/runtime/vm/vm_guest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {

absl::StatusOr<VmGuest> FindVmGuest(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    VmGuest g;
    g.dir = dir;
    g.kernel = dir + "/vmlinuz";
    g.initrd = dir + "/initrd.img";
    std::ifstream guest(dir + "/GUEST");
    if (!guest || access(g.kernel.c_str(), R_OK) != 0 ||
        access(g.initrd.c_str(), R_OK) != 0) {
      continue;
    }
    std::getline(guest, g.description);
    return g;
  }
  return absl::NotFoundError(absl::StrCat(
      "--vm_image: no guest image (vmlinuz, initrd.img, GUEST) in ",
      absl::StrJoin(dirs, " or "),
      " (build it with `make vm-image`, infra/vm/build-guest-image.sh)"));
}

absl::StatusOr<VmAccel> ChooseVmAccel(const std::string& requested,
                                      const std::string& kvm_device,
                                      const std::string& sys_module) {
  if (requested == "tcg") {
    return VmAccel{"tcg", "--vm_accel=tcg: QEMU emulates every guest "
                          "instruction (times are not comparable with "
                          "native runs)"};
  }
  if (requested != "auto" && requested != "kvm") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--vm_accel: unknown accelerator \"", requested,
        "\" (auto, kvm or tcg)"));
  }
  std::string why;
  const int fd = open(kvm_device.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    why = absl::StrCat(kvm_device, ": ", std::strerror(errno));
  } else {
    close(fd);
    std::error_code ec;
    if (std::filesystem::exists(sys_module + "/kvm_pvm", ec)) {
      why = absl::StrCat(
          "this kernel's KVM is PVM (", sys_module,
          "/kvm_pvm), which boots only guest kernels built for PVM");
    }
  }
  if (why.empty()) return VmAccel{"kvm", "KVM (" + kvm_device + ")"};
  if (requested == "kvm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--vm_accel=kvm: KVM is not usable: ", why));
  }
  return VmAccel{"", absl::StrCat(why, "; --vm_accel=tcg runs vm runs "
                                       "emulated")};
}

}  // namespace powersweep
