// RunIdle: `powersweep-workload idle`: the idle process of a baseload run
// in a container (the HiPC study measured the idle board with an idle
// container running). Writes the `started` record (build provenance, so
// the baseload carries the same fingerprints as the workload runs), sleeps
// `duration_s` on the clock, then writes `finished` (stop_reason
// "duration"). Records are written through `sink`; errors are its errors.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_IDLE_H_
#define POWERSWEEP_WORKLOADS_RUNNER_IDLE_H_

#include "absl/status/status.h"
#include "common/clock.h"
#include "workloads/runner/record_sink.h"

namespace powersweep {

absl::Status RunIdle(double duration_s, Clock* clock, RecordSink* sink);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_IDLE_H_
