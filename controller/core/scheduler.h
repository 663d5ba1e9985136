// Matching of runs to agents: which pending run an agent can serve.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_
#define POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_

#include <vector>

#include "powersweep/v1/powersweep.pb.h"

namespace powersweep {

// True if an agent with `identity` and `caps` can execute `spec`: same
// device class, the run's runtime, model and dataset are offered, and the
// power mode asks for no more CPU cores than the agent may use. A baseload
// run (TASK_BASELOAD) needs no model or dataset.
bool CanServe(const ::powersweep::v1::DeviceIdentity& identity,
              const ::powersweep::v1::DeviceCapabilities& caps,
              const ::powersweep::v1::RunSpec& spec);

// Index of the first run in `pending` (oldest first) that is not `taken`
// and that the agent can serve; -1 if none. `taken` has pending.size()
// entries.
int PickRun(const ::powersweep::v1::DeviceIdentity& identity,
            const ::powersweep::v1::DeviceCapabilities& caps,
            const std::vector<::powersweep::v1::RunSpec>& pending,
            const std::vector<bool>& taken);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_
