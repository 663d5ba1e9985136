// Run summaries: aggregates of one run's stored minibatch records,
// telemetry samples and result (mean minibatch time and its split,
// throughput, loss at start and end, CPU utilization, peak RSS, energy and
// its phase split, the agent's CPU fraction, and, given the device's
// baseload runs, baseload power and incremental energy (baseload.h).
// Pure functions apart from the store reads; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/baseload.h"
#include "powersweep/v1/powersweep.pb.h"
#include "storage/store.h"

namespace powersweep {

v1::RunSummary SummarizeRun(const std::vector<v1::MinibatchRecord>& minibatches,
                            const std::vector<v1::TelemetrySample>& telemetry,
                            const v1::RunResult* result);

// Reads the run's records from `store` and summarizes them (a run without
// a result yet is summarized from what is stored so far).
absl::StatusOr<v1::RunSummary> SummarizeStoredRun(Store* store, int64_t run_id);

// Same, and fills the baseload fields from `baseloads` (LoadBaseloads): a
// baseload run reports its own power (incremental energy 0); another run
// the power of PickBaseload and its incremental energy.
absl::StatusOr<v1::RunSummary> SummarizeStoredRun(
    Store* store, int64_t run_id, const std::vector<BaseloadRun>& baseloads);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_
