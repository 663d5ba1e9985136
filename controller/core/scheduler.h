// Matching of runs to agents: which pending run an agent can serve. The
// rule in one function; dispatch asks the store with the same rule as a
// query (Store::ListPendingRunsFor, checked against CanServe in
// tests/controller/core/pending_filter_test.cc). Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_
#define POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_

#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// True if an agent with `identity` and `caps` can execute `spec`: same
// device class, the run's runtime, model and dataset are offered, and the
// power mode asks for no more CPU cores than the agent may use. A baseload
// run (TASK_BASELOAD) needs no model or dataset.
bool CanServe(const ::powersweep::v1::DeviceIdentity& identity,
              const ::powersweep::v1::DeviceCapabilities& caps,
              const ::powersweep::v1::RunSpec& spec);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_SCHEDULER_H_
