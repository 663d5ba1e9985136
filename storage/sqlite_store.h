// SqliteStore: the Store (storage/store.h) on one SQLite file.
//
// Contract (in addition to store.h):
// - Open() refuses a path whose folder does not exist (NotFound naming it),
//   opens the file in WAL mode with synchronous=FULL, foreign_keys=ON and a
//   5 s busy timeout, and brings the schema up to date (migrations.h). A file
//   written by a newer powersweep is refused with FailedPrecondition.
// - One connection, guarded by a mutex: every public method runs as one
//   transaction (BEGIN IMMEDIATE for writes, a read transaction for reads)
//   and rolls back on any error, so it commits all or nothing.
// - Because of WAL, other processes (`sqlite3 FILE`, pandas) can read the
//   file while the store writes. ExportCsv reads through its own read-only
//   connection (one snapshot), so a slow `sink` never blocks writers.
// - Retrying a run (FAILED -> PENDING) increments attempt and deletes
//   nothing: batches, minibatches, telemetry and run_results carry the
//   attempt they belong to, so the new attempt numbers its batches from 1
//   again beside the failed attempt's rows, which stay in the file (and in
//   the export); the failure stays in run_state_history.
// - FinishRun follows the same transitions as TransitionRun (RUNNING ->
//   DONE|FAILED, LEASED -> FAILED).
// - runs.spec_json holds the RunSpec without run_id, sweep_id and attempt
//   (those live in their own columns, which are authoritative).
// - telemetry.extras_pb holds what the fixed columns do not (rails,
//   temperatures, memory clock, counters; telemetry_extras.h); rows from
//   before schema 7 have it as JSON in rails_json instead.
// - run_aggregates holds each attempt's record aggregates
//   (record_aggregates.h): stored when a run enters DONE, FAILED or
//   CANCELLED (in that transaction), deleted when a batch adds records to
//   the attempt, filled at Open for finished runs of older files.
//   GetSweepAggregates computes missing ones from the records.
// - models.model_json holds the whole WorkloadModel without model_id (its
//   own column); the selector columns beside it (class, workload, forms,
//   CV MAPE) are copies for SQL users.
// Thread-safe.
#ifndef POWERSWEEP_STORAGE_SQLITE_STORE_H_
#define POWERSWEEP_STORAGE_SQLITE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "storage/sqlite_db.h"
#include "storage/store.h"

namespace powersweep {

class SqliteStore : public Store {
 public:
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore() override = default;

  absl::Status UpsertDevice(const v1::DeviceIdentity& identity,
                            const v1::DeviceCapabilities& caps,
                            absl::Time now) override;
  absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices() override;
  // sqlite_store_devices.cc
  absl::Status SetDeviceDrained(const std::string& device_id,
                                bool drained) override;
  absl::Status SetDeviceForgotten(const std::string& device_id,
                                  bool forgotten) override;
  absl::StatusOr<std::vector<std::string>> ListUnusedDevices() override;
  absl::StatusOr<bool> DeleteUnusedDevice(const std::string& device_id) override;
  absl::Status SaveDeviceDisconnected(const std::string& device_id,
                                      absl::Time last_seen,
                                      absl::Time at) override;
  absl::Status SaveDeviceHealth(const std::string& device_id,
                                const v1::DeviceHealth& health) override;

  absl::StatusOr<int64_t> CreateSweep(const v1::SweepSpec& spec,
                                      const std::vector<v1::RunSpec>& runs,
                                      absl::Time now) override;
  absl::StatusOr<v1::SweepSpec> GetSweepSpec(int64_t sweep_id) override;
  absl::StatusOr<v1::SweepStatus> GetSweepStatus(int64_t sweep_id) override;
  absl::StatusOr<std::vector<v1::SweepStatus>> ListSweeps() override;

  absl::StatusOr<std::vector<v1::RunStatus>> ListRuns(int64_t sweep_id) override;
  absl::StatusOr<v1::RunStatus> GetRun(int64_t run_id) override;
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRuns(int limit) override;
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRunsFor(
      const PendingFilter& filter, int limit) override;
  absl::StatusOr<std::vector<v1::RunStatus>> ListActiveRuns(
      const std::string& device_id) override;
  absl::Status SetRunTimeout(int64_t run_id, double timeout_s) override;
  absl::Status TransitionRun(int64_t run_id, v1::RunState to,
                             const std::string& device_id,
                             const std::string& reason, absl::Time now) override;
  absl::StatusOr<std::vector<RunStateChange>> GetRunHistory(int64_t run_id) override;

  absl::StatusOr<IngestOutcome> IngestBatch(const v1::DataBatch& batch) override;
  absl::StatusOr<int64_t> CountBatches(int64_t run_id) override;
  absl::StatusOr<std::vector<int64_t>> ListBatchSeqs(int64_t run_id) override;
  absl::StatusOr<std::string> GetDatabaseId() override;
  absl::Status SaveAppliedMode(int64_t run_id,
                               const v1::AppliedPowerMode& mode) override;
  absl::Status FinishRun(const v1::RunResult& result, v1::RunState final_state,
                         const std::string& reason, absl::Time now) override;
  absl::StatusOr<v1::RunResult> GetRunResult(int64_t run_id) override;

  absl::StatusOr<std::vector<v1::MinibatchRecord>> GetMinibatches(
      int64_t run_id) override;
  absl::StatusOr<std::vector<v1::TelemetrySample>> GetTelemetry(
      int64_t run_id) override;

  absl::Status ExportCsv(int64_t sweep_id, const std::string& table,
                         const std::function<void(const std::string&)>& sink) override;

  absl::StatusOr<std::vector<RunAggregates>> GetSweepAggregates(
      int64_t sweep_id) override;
  absl::StatusOr<std::vector<v1::RunResult>> ListRunResults(
      int64_t sweep_id) override;
  absl::StatusOr<std::vector<RunWithResult>> FindBaseloads(
      const std::string& device_id, const v1::PowerMode* mode) override;

  absl::StatusOr<int64_t> SaveModel(const v1::WorkloadModel& model) override;
  absl::StatusOr<std::vector<v1::WorkloadModel>> ListModels() override;
  absl::StatusOr<v1::WorkloadModel> GetModel(int64_t model_id) override;
  absl::Status SaveDeviceOffsets(
      const std::vector<v1::DeviceOffset>& offsets) override;
  absl::StatusOr<std::vector<v1::DeviceOffset>> ListDeviceOffsets(
      const std::string& device_id) override;

  // The errors sqlite returned to this store (its connection and the
  // export's), by kind (sqlite_db.h), for the controller's /metrics page.
  // Any thread.
  const SqliteErrorCounts& error_counts() const { return error_counts_; }

 private:
  // One batch waiting for a group commit (IngestBatch).
  struct PendingIngest {
    const v1::DataBatch* batch = nullptr;
    absl::StatusOr<IngestOutcome> result = IngestOutcome::kStored;
    bool done = false;
  };
  // Commits `group` in one transaction, a savepoint per batch.
  void CommitGroup(const std::vector<PendingIngest*>& group)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Stores one batch; inside a write transaction.
  absl::Status IngestOneLocked(const v1::DataBatch& batch,
                               IngestOutcome* outcome)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  explicit SqliteStore(std::unique_ptr<SqliteDb> db)
      : path_(db->path()), db_(std::move(db)) {
    absl::MutexLock lock(&mu_);
    db_->CountErrorsIn(&error_counts_);
  }

  // Runs "UPDATE devices SET `set_sql` WHERE device_id = ?1" in one
  // transaction, `bind` binding ?2...; NotFound when no row matched.
  absl::Status UpdateDevice(const std::string& device_id,
                            const std::string& set_sql,
                            const std::function<void(Stmt&)>& bind)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Helpers; each runs inside the caller's transaction.
  absl::StatusOr<v1::RunStatus> LoadRun(int64_t run_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RequireRun(int64_t run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The run's current attempt; NotFound for an unknown run.
  absl::StatusOr<int32_t> CurrentAttempt(int64_t run_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<v1::SweepStatus> LoadSweepStatus(int64_t sweep_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Validates and applies one transition of `run` (as loaded) and appends
  // its history row.
  absl::Status ApplyTransition(const v1::RunStatus& run, v1::RunState to,
                               const std::string& device_id,
                               const std::string& reason, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status InsertResult(const v1::RunResult& result, int32_t attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The result's traces as rows of run_traces (run_trace_rows.h).
  absl::Status InsertTraces(const v1::RunResult& result, int32_t attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Record aggregates of one attempt from its stored records.
  absl::StatusOr<RecordAggregates> ComputeAggregates(int64_t run_id,
                                                     int32_t attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Computes and stores (replacing) the aggregates of one attempt.
  absl::Status StoreAggregates(int64_t run_id, int32_t attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Stores the aggregates of every run in a final state whose current
  // attempt has none (files from before schema 7); one transaction.
  absl::Status BackfillAggregates() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Fills telemetry.rails_mw and temperatures_c (schema 14) of the rows
  // stored by schema 7 to 13 from their extras_pb, once (meta key
  // 'telemetry_columns'), in chunks of rows.
  absl::Status BackfillTelemetryColumns() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  // Declared before db_, which points to it.
  SqliteErrorCounts error_counts_;
  absl::Mutex mu_;
  std::unique_ptr<SqliteDb> db_ ABSL_GUARDED_BY(mu_);
  // Group commit of concurrent IngestBatch calls; taken before mu_.
  absl::Mutex group_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::vector<PendingIngest*> group_queue_ ABSL_GUARDED_BY(group_mu_);
  bool group_leader_ ABSL_GUARDED_BY(group_mu_) = false;
};

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_SQLITE_STORE_H_
