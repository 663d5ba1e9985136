#include "controller/sweep/validate_vm.h"

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"

namespace powersweep {
namespace {

void CheckVcpus(const std::string& field, int32_t vcpus,
                std::vector<std::string>* problems) {
  if (vcpus < 0 || vcpus > 256) {
    problems->push_back(absl::StrCat(
        field, ": ", vcpus,
        " is out of range (1..256, or 0 for the run's cores)"));
  }
}

void CheckVmMemory(const std::string& field, int32_t mib,
                   std::vector<std::string>* problems) {
  if (mib != 0 && (mib < 256 || mib > (1 << 20))) {
    problems->push_back(absl::StrCat(field, ": ", mib,
                                     " is out of range (256..1048576, or 0 "
                                     "for 4096)"));
  }
}

// "field[i]: duplicate of field[j] (v)" for a value given twice.
void CheckRepeats(const std::string& field,
                  const google::protobuf::RepeatedField<int32_t>& values,
                  std::vector<std::string>* problems) {
  for (int i = 0; i < values.size(); ++i) {
    for (int j = 0; j < i; ++j) {
      if (values[i] == values[j]) {
        problems->push_back(absl::StrCat(field, "[", i, "]: duplicate of ",
                                         field, "[", j, "] (", values[i],
                                         ")"));
        break;
      }
    }
  }
}

}  // namespace

bool HasVmRuntime(const v1::SweepSpec& spec) {
  for (int r : spec.runtimes()) {
    if (RunsInVm(static_cast<v1::Runtime>(r))) return true;
  }
  return false;
}

// The `vm` key and the vm_vcpus / vm_memory_mib axes: sizes in range, an
// axis or `vm`'s field (not both), and only with a vm runtime.
void CheckVmSize(const v1::SweepSpec& spec,
                 std::vector<std::string>* problems) {
  const bool axes = !spec.vm_vcpus().empty() || !spec.vm_memory_mib().empty();
  if (!spec.has_vm() && !axes) return;
  CheckVcpus("vm.vcpus", spec.vm().vcpus(), problems);
  CheckVmMemory("vm.memory_mib", spec.vm().memory_mib(), problems);
  for (int i = 0; i < spec.vm_vcpus_size(); ++i) {
    CheckVcpus(absl::StrCat("vm_vcpus[", i, "]"), spec.vm_vcpus(i), problems);
  }
  for (int i = 0; i < spec.vm_memory_mib_size(); ++i) {
    CheckVmMemory(absl::StrCat("vm_memory_mib[", i, "]"),
                  spec.vm_memory_mib(i),
                  problems);
  }
  CheckRepeats("vm_vcpus", spec.vm_vcpus(), problems);
  CheckRepeats("vm_memory_mib", spec.vm_memory_mib(), problems);
  if (!spec.vm_vcpus().empty() && spec.vm().vcpus() != 0) {
    problems->push_back(
        "vm_vcpus: the vCPU counts are given both here and in vm.vcpus "
        "(keep one)");
  }
  if (!spec.vm_memory_mib().empty() && spec.vm().memory_mib() != 0) {
    problems->push_back(
        "vm_memory_mib: the memory sizes are given both here and in "
        "vm.memory_mib (keep one)");
  }
  if (!HasVmRuntime(spec)) {
    problems->push_back(absl::StrCat(
        spec.has_vm() ? "vm" : !spec.vm_vcpus().empty() ? "vm_vcpus"
                                                         : "vm_memory_mib",
        ": only runs of the vm and container_in_vm runtimes have a virtual "
        "machine (add one of them to runtimes)"));
  }
}

}  // namespace powersweep
