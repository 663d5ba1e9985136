// The agent's RunRuntimeFactory: a native process (NativeRuntime) for
// native runs, a container (DockerRuntime) for container runs when the
// agent has an engine, a virtual machine (VmRuntime) for vm runs when it
// has QEMU and a guest, and both (VmRuntime with a VmContainerRun) for
// container_in_vm runs when it has all of them; one runtime per tenant.
//
// A container_in_vm run's image is resolved and checked against the
// allowlist, and saved for the guest (vms.archives, once per image), when
// its runtime is made: before the run's clock starts.
//
// A container run mounts its dataset directory read-only, asks for
// spec.container_image (checked against the agent's own allowlist by
// DockerRuntime) and is named after the device, run, attempt and tenant.
// Without an engine a container run gets FailedPrecondition.
//
// The returned factory holds the pointers; they must outlive it. Its calls
// are thread-compatible (the executor makes runtimes on one thread).
#ifndef POWERSWEEP_AGENT_RUNTIME_RUNTIME_FACTORY_H_
#define POWERSWEEP_AGENT_RUNTIME_RUNTIME_FACTORY_H_

#include <string>

#include "agent/run/catalog.h"
#include "agent/runtime/docker/container_config.h"
#include "agent/runtime/docker/container_engine.h"
#include "agent/runtime/runtime.h"
#include "agent/runtime/vm/vm_setup.h"
#include "common/clock.h"

namespace powersweep {

struct ContainerSetup {
  ContainerEngine* engine = nullptr;  // null: no container runs
  DockerRuntimeConfig config;
  std::string device_id;
};

RunRuntimeFactory MakeRuntimeFactory(Clock* clock, const Catalog* catalog,
                                     ContainerSetup containers,
                                     VmSetup vms = {});

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_RUNTIME_FACTORY_H_
