// Store: everything the controller persists (devices, sweeps, runs and
// their state history, minibatch records, telemetry samples, run results,
// fitted time and energy models).
//
// Contract:
// - Every method is atomic: it either commits all it writes or nothing.
// - Implementations are thread-safe; callers may share one Store between
//   threads (SqliteStore serializes writers internally).
// - Errors: NotFound for unknown ids, FailedPrecondition for a state
//   transition the run's current state does not allow, InvalidArgument for
//   malformed input, Internal/Unavailable for storage failures.
// - Times passed in are wall-clock; the Store never reads a clock itself.
// - Attempts: a run's data (batches, minibatch records, telemetry, result)
//   is kept per attempt (RunSpec.attempt). A retry never deletes the data of
//   earlier attempts; the per-run readers below return the run's CURRENT
//   attempt only, and ExportCsv exports every attempt.
// - Ids (sweeps, runs, models) are assigned here, increase in the order
//   things are created, and are never reused; a call that fails assigns
//   none. Times are kept to the millisecond.
// - Malformed input (InvalidArgument, nothing stored) includes negative
//   counts or knobs in a RunSpec, and NaN where a record or result needs a
//   number (a minibatch's times and loss, a sample's time, utilizations
//   and power, a result's duration, energy and sampler CPU time).
//
// tests/storage/store_conformance_*_test.cc state this contract as tests
// and run them against every implementation (SqliteStore, MemoryStore).
#ifndef POWERSWEEP_STORAGE_STORE_H_
#define POWERSWEEP_STORAGE_STORE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "powersweep/v1/agent_gateway.pb.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "storage/record_aggregates.h"

namespace powersweep {

struct RunStateChange {
  int64_t run_id = 0;
  v1::RunState from = v1::RUN_STATE_UNSPECIFIED;  // UNSPECIFIED on creation
  v1::RunState to = v1::RUN_STATE_UNSPECIFIED;
  std::string device_id;
  std::string reason;
  absl::Time at;
};

// What a device can serve, for ListPendingRunsFor: runs of its class, of
// one of its runtimes, on at most max_cpu_cores cores, and (except
// baseload runs, which start no workload) of one of its models and
// datasets, or of one of its `kernels` on any dataset (a kernel's dataset
// is its shape, common/kernel_shape.h). Run ids in `exclude` are skipped. A run placed on devices
// (RunSpec.devices) only matches when one of them is in `device_ids`.
struct PendingFilter {
  std::string device_class;
  std::vector<v1::Runtime> runtimes;
  std::vector<std::string> models;
  std::vector<std::string> datasets;
  std::vector<std::string> kernels;
  int max_cpu_cores = 0;
  std::vector<int64_t> exclude;
  std::vector<std::string> device_ids;
};

// The record aggregates of one run attempt (Store::GetSweepAggregates).
struct RunAggregates {
  int64_t run_id = 0;
  int32_t attempt = 0;
  RecordAggregates aggregates;
};

// A done run with its current attempt's result (Store::FindBaseloads).
struct RunWithResult {
  v1::RunStatus run;
  v1::RunResult result;
};

// Result of ingesting one DataBatch.
// kConflict: (run_id, attempt, seq) is stored with other numbers of
// minibatch records or telemetry samples than this batch has: the agent
// sent two contents under one sequence number (the first is kept).
enum class IngestOutcome { kStored, kDuplicate, kConflict };

class Store {
 public:
  virtual ~Store() = default;

  // ---- devices
  // Inserts or updates the device by identity.device_id; last_seen = now.
  // A forgotten device is remembered again (its drained mark and health
  // are kept).
  virtual absl::Status UpsertDevice(const v1::DeviceIdentity& identity,
                                    const v1::DeviceCapabilities& caps,
                                    absl::Time now) = 0;
  // All devices ever registered, forgotten ones included, by device_id,
  // with `drained`, `forgotten` and `health` (when one was saved) as
  // stored; `connected` and `current_run_id` are left for the caller (the
  // registry) to fill.
  virtual absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices() = 0;

  // ---- device state (schema 11). Each is NotFound, naming the id, for a
  // device the store does not hold, and changes nothing else.
  // Marks the device drained (the dispatcher gives it no new runs) or not.
  virtual absl::Status SetDeviceDrained(const std::string& device_id,
                                        bool drained) = 0;
  // Marks the device forgotten or not. Its runs and data stay.
  virtual absl::Status SetDeviceForgotten(const std::string& device_id,
                                          bool forgotten) = 0;
  // Devices no run ever named (never leased, ran, or targeted, no
  // calibration offsets): what a registration alone left behind.
  virtual absl::StatusOr<std::vector<std::string>> ListUnusedDevices() = 0;
  // Deletes the device if it is still unused (as ListUnusedDevices):
  // true when it was deleted, false when a run names it or it is unknown.
  virtual absl::StatusOr<bool> DeleteUnusedDevice(
      const std::string& device_id) = 0;
  // Stores the device's latest health check, replacing the previous one.
  // Records that the device's agent disconnected at `at`, last heard at
  // `last_seen` (last_seen_unix_ms becomes the later of it and the stored
  // one); UpsertDevice (it registers again) clears the disconnection.
  // NotFound for a device never upserted.
  virtual absl::Status SaveDeviceDisconnected(const std::string& device_id,
                                              absl::Time last_seen,
                                              absl::Time at) = 0;
  virtual absl::Status SaveDeviceHealth(const std::string& device_id,
                                        const v1::DeviceHealth& health) = 0;

  // ---- sweeps
  // Creates the sweep and all of `runs` (state PENDING, attempt 1) in one
  // transaction. run_id and sweep_id in `runs` are ignored and assigned
  // here. Returns the new sweep id.
  virtual absl::StatusOr<int64_t> CreateSweep(const v1::SweepSpec& spec,
                                              const std::vector<v1::RunSpec>& runs,
                                              absl::Time now) = 0;
  virtual absl::StatusOr<v1::SweepSpec> GetSweepSpec(int64_t sweep_id) = 0;
  // Counts per state; mean_done_run_s from started/finished of done runs.
  virtual absl::StatusOr<v1::SweepStatus> GetSweepStatus(int64_t sweep_id) = 0;
  virtual absl::StatusOr<std::vector<v1::SweepStatus>> ListSweeps() = 0;

  // ---- runs
  // Runs of a sweep in run_id order; `summary` is not filled.
  virtual absl::StatusOr<std::vector<v1::RunStatus>> ListRuns(int64_t sweep_id) = 0;
  virtual absl::StatusOr<v1::RunStatus> GetRun(int64_t run_id) = 0;
  // Up to `limit` PENDING runs, oldest (lowest run_id) first.
  virtual absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRuns(int limit) = 0;
  // Up to `limit` PENDING runs a device described by `filter` can serve,
  // oldest first (see PendingFilter). Decodes only the rows it returns.
  virtual absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRunsFor(
      const PendingFilter& filter, int limit) = 0;
  // Runs in LEASED or RUNNING state (optionally only those of one device).
  virtual absl::StatusOr<std::vector<v1::RunStatus>> ListActiveRuns(
      const std::string& device_id) = 0;
  // Moves a run to `to` and appends a history row, in one transaction.
  // Allowed: PENDING->LEASED|CANCELLED; LEASED->RUNNING|PENDING|FAILED|
  // CANCELLED; RUNNING->DONE|FAILED|CANCELLED; FAILED->PENDING (a retry)
  // and CANCELLED->PENDING (a rerun): attempt is incremented, the ended
  // attempt's data is kept; FAILED->DONE (through FinishRun: the result of
  // an attempt the controller had failed for a lost agent arrived). LEASED
  // sets
  // device_id (InvalidArgument without one); RUNNING sets started time (and
  // device_id when one is given); DONE/FAILED/CANCELLED set finished time
  // and reason. PENDING clears device_id and the times; a retry or rerun
  // also clears the reason and the applied mode. The history row names
  // `device_id`, or the run's device when it is empty.
  virtual absl::Status TransitionRun(int64_t run_id, v1::RunState to,
                                     const std::string& device_id,
                                     const std::string& reason,
                                     absl::Time now) = 0;
  virtual absl::StatusOr<std::vector<RunStateChange>> GetRunHistory(
      int64_t run_id) = 0;
  // Sets the run's RunSpec.timeout_s (a rerun with a longer timeout).
  // FailedPrecondition unless the run is PENDING (its next attempt is not
  // leased yet); InvalidArgument unless timeout_s > 0.
  virtual absl::Status SetRunTimeout(int64_t run_id, double timeout_s) = 0;

  // ---- ingest
  // Stores the batch's minibatch records and telemetry samples in one
  // transaction under the batch's attempt (0 = the run's current attempt),
  // unless (run_id, attempt, seq) is already stored (kDuplicate; kConflict
  // when the stored batch had other row counts), whatever the run's state. NotFound for an unknown run; FailedPrecondition,
  // storing nothing, for a batch whose attempt is not the run's current
  // attempt; InvalidArgument for seq < 1 or attempt < 0.
  virtual absl::StatusOr<IngestOutcome> IngestBatch(const v1::DataBatch& batch) = 0;
  // Number of distinct batches stored for the run's current attempt.
  virtual absl::StatusOr<int64_t> CountBatches(int64_t run_id) = 0;
  // Sequence numbers of the batches stored for the run's current attempt,
  // ascending.
  virtual absl::StatusOr<std::vector<int64_t>> ListBatchSeqs(int64_t run_id) = 0;
  // The database's identity: random, made when its schema was created (or
  // upgraded to version 8), never changed.
  virtual absl::StatusOr<std::string> GetDatabaseId() = 0;
  // Stores what the platform applied for the run (idempotent overwrite).
  // NotFound for an unknown run; FailedPrecondition, changing nothing, for a
  // run that has ended (IsFinal).
  virtual absl::Status SaveAppliedMode(int64_t run_id,
                                       const v1::AppliedPowerMode& mode) = 0;
  // Stores the run's result as the result of its current attempt and moves
  // it to `final_state` (DONE or FAILED, with `reason`) in one transaction.
  // Storing a result for an attempt that already has one returns
  // kDuplicate-like success (OK, nothing changes).
  virtual absl::Status FinishRun(const v1::RunResult& result,
                                 v1::RunState final_state,
                                 const std::string& reason, absl::Time now) = 0;
  // The result of the run's current attempt; NotFound when it has none.
  virtual absl::StatusOr<v1::RunResult> GetRunResult(int64_t run_id) = 0;

  // ---- records (of the run's current attempt only)
  virtual absl::StatusOr<std::vector<v1::MinibatchRecord>> GetMinibatches(
      int64_t run_id) = 0;
  virtual absl::StatusOr<std::vector<v1::TelemetrySample>> GetTelemetry(
      int64_t run_id) = 0;

  // ---- export
  // Writes table `table` ("runs", "minibatches", "telemetry") of a sweep
  // as CSV (header first) through `sink`, in chunks of whole lines. The
  // export is one snapshot; `sink` may call the store.
  // "runs" has one row per run with the result of its current attempt;
  // "minibatches" and "telemetry" have an `attempt` column and hold the
  // rows of every attempt.
  virtual absl::Status ExportCsv(
      int64_t sweep_id, const std::string& table,
      const std::function<void(const std::string&)>& sink) = 0;

  // ---- tables of a sweep at scale (schema 7)
  // The record aggregates (record_aggregates.h) of every run of the sweep,
  // for each run's current attempt, in run_id order: as stored when the
  // attempt reached a final state, else computed from its stored records.
  // Equal to RecordAggregator over GetMinibatches/GetTelemetry. NotFound
  // for an unknown sweep.
  virtual absl::StatusOr<std::vector<RunAggregates>> GetSweepAggregates(
      int64_t sweep_id) = 0;
  // The result of the current attempt of every run of the sweep that has
  // one, in run_id order (GetRunResult for each). NotFound for an unknown
  // sweep.
  virtual absl::StatusOr<std::vector<v1::RunResult>> ListRunResults(
      int64_t sweep_id) = 0;
  // Done baseload runs (task baseload) of device `device_id` ("" = of every
  // device) that have a result, with it, in run_id order; when `mode` is
  // not null only those whose RunSpec.power_mode equals *mode. An indexed
  // lookup, not a scan of every run.
  virtual absl::StatusOr<std::vector<RunWithResult>> FindBaseloads(
      const std::string& device_id, const v1::PowerMode* mode) = 0;

  // ---- fitted models (controller/modeling)
  // Stores `model` as a new row and returns its model_id, assigned here
  // (model.model_id is ignored). NotFound for an unknown sweep_id;
  // InvalidArgument when device_class or model is empty.
  virtual absl::StatusOr<int64_t> SaveModel(const v1::WorkloadModel& model) = 0;
  // Every stored model, oldest (lowest model_id) first, with its model_id.
  virtual absl::StatusOr<std::vector<v1::WorkloadModel>> ListModels() = 0;
  // NotFound for an unknown id.
  virtual absl::StatusOr<v1::WorkloadModel> GetModel(int64_t model_id) = 0;

  // ---- calibration offsets of device instances (variability studies)
  // Stores each offset, replacing the one of the same (device_id, metric),
  // all in one transaction. InvalidArgument (nothing stored) when an
  // offset has an empty device_id, device_class or metric, or a factor
  // that is not finite and positive.
  virtual absl::Status SaveDeviceOffsets(
      const std::vector<v1::DeviceOffset>& offsets) = 0;
  // The offsets of `device_id` ("" = of every device), by device_id then
  // metric.
  virtual absl::StatusOr<std::vector<v1::DeviceOffset>> ListDeviceOffsets(
      const std::string& device_id) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_STORE_H_
