// Internal to sweep validation (validate.cc): the virtual machines of the
// vm and container_in_vm runtimes. The `vm` key gives one shape
// (vcpus 1..256 or 0 for the run's cores; memory_mib 256..1048576 or 0 for
// 4096); the vm_vcpus and vm_memory_mib axes give several (each in the
// same range, no value twice, not together with the same field of `vm`);
// all of them only with a vm runtime in `runtimes`. Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_VM_H_
#define POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_VM_H_

#include <string>
#include <vector>

#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

// Whether `spec.runtimes` holds vm or container_in_vm.
bool HasVmRuntime(const v1::SweepSpec& spec);

// Appends one line per problem of the `vm` key and the vm axes.
void CheckVmSize(const v1::SweepSpec& spec, std::vector<std::string>* problems);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_VM_H_
