// Run summaries: aggregates of one run's stored minibatch records,
// telemetry samples and result (mean minibatch time and its split,
// throughput, loss at start and end, CPU utilization, peak RSS, energy and
// its phase split, the agent's CPU fraction, and, given the device's
// stored baseload, baseload power and incremental energy (baseload.h).
// Pure functions apart from the store reads; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/baseload.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "storage/store.h"

namespace powersweep {

// The records' part is RecordAggregator's (storage/record_aggregates.h),
// the same arithmetic the store keeps per finished run; then ApplyResult.
v1::RunSummary SummarizeRun(const std::vector<v1::MinibatchRecord>& minibatches,
                            const std::vector<v1::TelemetrySample>& telemetry,
                            const v1::RunResult* result);

// The result's figures over the records' ones: duration, energy and its
// split (when the agent measured any), the agent's CPU fraction; for a
// kernel run, achieved GFLOP/s and launches per second from the result's
// KernelInfo over the records' mean compute time (so call it after the
// records' aggregates are in `summary`).
void ApplyResult(const v1::RunResult& result, v1::RunSummary* summary);

// The span energy_j covers and the mean power over it, the one definition
// every view uses: energy_span_s = result->energy_span_s when the result
// gave the energy and has a span, else `power_span_s` (the stored samples'
// first to last power reading), else the run's duration (a result of an
// agent that reports no span, with no power samples stored);
// mean_power_mw = energy_j / energy_span_s. Both 0 without energy or span. Call after ApplyResult; `result` may be
// null.
void ApplyEnergySpan(const v1::RunResult* result, double power_span_s,
                     v1::RunSummary* summary);

// The baseload fields of `summary`: a baseload run reports its own power;
// another run the baseload, its power and the incremental energy stored
// with its result when it finished (baseload.h), nothing when none was
// stored. Never picks a baseload itself. `result` may be null.
void ApplyRunBaseload(const v1::RunStatus& run, const v1::RunResult* result,
                      v1::RunSummary* summary);

// Reads the run's records and result from `store` and summarizes them (a
// run without a result yet is summarized from what is stored so far),
// with ApplyEnergySpan and ApplyRunBaseload.
absl::StatusOr<v1::RunSummary> SummarizeStoredRun(Store* store, int64_t run_id);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_RUN_SUMMARY_H_
