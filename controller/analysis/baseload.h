// Baseload of a device: the idle power measured by baseload runs
// (TASK_BASELOAD), and the incremental energy of other runs over it.
//
// A run's baseload is the done baseload run of the same device (device_id)
// and the same power mode (all PowerMode fields equal) that finished most
// recently at or before the run started; a baseload measured later never
// counts (a run without one has no incremental energy). Its power is the
// baseload run's time-weighted mean power (RunResult.baseload_power_mw,
// else energy_j / energy_span_s).
//
//   incremental_energy_j = energy_j - baseload_power_mw / 1000 * span_s
//
// where span_s is the time energy_j covers (first to last power reading:
// RunResult.energy_span_s).
//
// It is computed once, when the run finishes (controller/core/ingest.cc
// calls PickBaseload and ApplyBaseload(result)), and stored with the
// result (run_results.baseload_run_id, baseload_power_mw,
// incremental_energy_j). Every view (runs, summary, compare, variability,
// report, export, the models) reads the stored values; none picks a
// baseload itself. As only baseloads that finished before the run started
// count, no later run changes a stored value. docs/quantities.md.
//
// Pure functions except LoadBaseloads*, which read the store. Thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_BASELOAD_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_BASELOAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "storage/store.h"

namespace powersweep {

struct BaseloadRun {
  int64_t run_id = 0;
  std::string device_id;
  v1::PowerMode power_mode;
  int64_t finished_unix_ms = 0;
  double power_mw = 0;
  v1::Runtime runtime = v1::RUNTIME_NATIVE;  // idle natively or in a container
};

// The baseload entry of a finished baseload run (nullopt when `run` is not
// a done baseload run or its result has no power).
std::optional<BaseloadRun> AsBaseload(const v1::RunStatus& run,
                                      const v1::RunResult& result);

// The baseload for `run` among `baseloads` (see the header comment),
// preferring one of the run's runtime (a container run: the idle device
// with an idle container; a native run: the idle device); nullopt when
// none finished at or before the run started (or it never started).
std::optional<BaseloadRun> PickBaseload(const v1::RunStatus& run,
                                        const std::vector<BaseloadRun>& baseloads);

// Fills baseload_power_mw, baseload_run_id and incremental_energy_j of a
// workload run's result when it finishes (the controller stores it):
// span = result.energy_span_s, else duration_s (results of agents that
// predate energy_span_s). No-op without energy or span.
void ApplyBaseload(const BaseloadRun& baseload, v1::RunResult* result);

// Every done baseload run in `store` (all sweeps, every device).
absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloads(Store* store);

// The done baseload runs of one device (Store::FindBaseloads: an indexed
// lookup), e.g. for a run that just finished on it.
absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloads(
    Store* store, const std::string& device_id);

// The done baseload runs of the devices `runs` ran on: all PickBaseload
// can choose for any of them.
absl::StatusOr<std::vector<BaseloadRun>> LoadBaseloadsFor(
    Store* store, const std::vector<v1::RunStatus>& runs);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_BASELOAD_H_
