// The runs of a sweep with their summaries (the `runs` and `summary`
// tables), from what the store keeps per run (Store::GetSweepAggregates,
// ListRunResults, with the baseload stored with each result): a few
// queries per sweep, no telemetry decoding. Gives the same summaries as
// SummarizeStoredRun(store, id) for each run.
// Thread-safe (the store is).
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_SWEEP_SUMMARIES_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_SWEEP_SUMMARIES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/run.pb.h"
#include "storage/store.h"

namespace powersweep {

// Store::ListRuns(sweep_id) with each run's `summary` filled.
absl::StatusOr<std::vector<v1::RunStatus>> ListRunsWithSummaries(
    Store* store, int64_t sweep_id);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_SWEEP_SUMMARIES_H_
