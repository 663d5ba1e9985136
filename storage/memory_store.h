// MemoryStore: the whole Store (storage/store.h) in memory, for tests.
//
// Built into powersweep_storage_testing, which only tests link. It keeps
// the contract SqliteStore keeps, and the Store conformance suite
// (tests/storage/store_conformance_*_test.cc) runs against both; where the
// interface leaves a detail open it does what SqliteStore does:
// - ids (sweeps, runs, models) are assigned from 1 upwards and never
//   reused; a call that fails assigns none;
// - the input SqliteStore's table constraints refuse is refused here too,
//   with InvalidArgument and nothing stored: negative counts and knobs in a
//   RunSpec, NaN measurements in records and results;
// - records are returned in SqliteStore's order (minibatches by tenant,
//   then index; telemetry by time; ties in arrival order), their numbers
//   as SQLite's REAL columns give them back (-0.0 as 0.0);
// - ExportCsv writes the same header, rows and cell text (numbers as
//   SQLite renders them), 1000 rows to a chunk. It copies what it exports
//   first, so `sink` runs without the lock and may call the store.
// - GetDatabaseId: 32 random hex digits chosen at construction.
// Nothing is persisted. Thread-safe (one mutex). Not final: tests derive
// from it to count or fail calls.
#ifndef POWERSWEEP_STORAGE_MEMORY_STORE_H_
#define POWERSWEEP_STORAGE_MEMORY_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "storage/store.h"

namespace powersweep {

class MemoryStore : public Store {
 public:
  MemoryStore();
  ~MemoryStore() override = default;

  absl::Status UpsertDevice(const v1::DeviceIdentity& identity,
                            const v1::DeviceCapabilities& caps,
                            absl::Time now) override;
  absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices() override;
  // memory_store_devices.cc
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

  absl::StatusOr<std::vector<v1::RunStatus>> ListRuns(
      int64_t sweep_id) override;
  absl::StatusOr<v1::RunStatus> GetRun(int64_t run_id) override;
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRuns(int limit) override;
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRunsFor(
      const PendingFilter& filter, int limit) override;
  absl::StatusOr<std::vector<v1::RunStatus>> ListActiveRuns(
      const std::string& device_id) override;
  absl::Status SetRunTimeout(int64_t run_id, double timeout_s) override;
  absl::Status TransitionRun(int64_t run_id, v1::RunState to,
                             const std::string& device_id,
                             const std::string& reason,
                             absl::Time now) override;
  absl::StatusOr<std::vector<RunStateChange>> GetRunHistory(
      int64_t run_id) override;

  absl::StatusOr<IngestOutcome> IngestBatch(
      const v1::DataBatch& batch) override;
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

  absl::Status ExportCsv(
      int64_t sweep_id, const std::string& table,
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

 private:
  struct Device {
    v1::DeviceIdentity identity;
    v1::DeviceCapabilities caps;
    int64_t last_seen_ms = 0;
    int64_t disconnected_ms = 0;  // 0: connected since, or never recorded
    bool drained = false;
    bool forgotten = false;
    std::optional<v1::DeviceHealth> health;
  };
  struct Sweep {
    v1::SweepSpec spec;
    int64_t created_ms = 0;
    std::vector<int64_t> run_ids;  // ascending
  };
  // What one attempt of a run holds; records in arrival order.
  struct Minibatch {
    int64_t seq = 0;
    v1::MinibatchRecord record;
  };
  struct Sample {
    int64_t seq = 0;
    v1::TelemetrySample sample;
  };
  struct Attempt {
    std::set<int64_t> seqs;
    // Per seq: its minibatch and telemetry counts (IngestOutcome::kConflict).
    std::map<int64_t, std::pair<int, int>> seq_rows;
    std::vector<Minibatch> minibatches;
    std::vector<Sample> telemetry;
    std::optional<v1::RunResult> result;
  };
  struct Run {
    v1::RunSpec spec;  // run_id, sweep_id and attempt set
    v1::RunState state = v1::RUN_STATE_PENDING;
    std::string device_id;
    std::string reason;
    int64_t created_ms = 0;
    std::optional<int64_t> leased_ms, started_ms, finished_ms;
    std::optional<v1::AppliedPowerMode> applied_mode;
    std::vector<RunStateChange> history;
    std::map<int32_t, Attempt> attempts;
  };

  // NotFound naming the id for a device never upserted.
  absl::StatusOr<Device*> FindDevice(const std::string& device_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Run*> FindRun(int64_t run_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Sweep*> FindSweep(int64_t sweep_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The run's current attempt (created empty when it has no data yet).
  Attempt& Current(Run& run) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::SweepStatus StatusOf(int64_t sweep_id, const Sweep& sweep)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FailedPrecondition for a transition store.h does not allow,
  // InvalidArgument for a lease without a device.
  static absl::Status CheckTransition(const Run& run, v1::RunState to,
                                      const std::string& device_id);
  // Validates and applies one transition, appending its history entry.
  absl::Status ApplyTransition(Run& run, v1::RunState to,
                               const std::string& device_id,
                               const std::string& reason, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The CSV text of one table of a sweep, as chunks.
  std::vector<std::string> CsvChunks(const Sweep& sweep,
                                     const std::string& table)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  static v1::RunStatus StatusOf(const Run& run);
  static std::vector<v1::MinibatchRecord> SortedMinibatches(const Attempt& a);
  static std::vector<v1::TelemetrySample> SortedTelemetry(const Attempt& a);

  const std::string database_id_;
  absl::Mutex mu_;
  std::map<std::string, Device> devices_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Sweep> sweeps_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Run> runs_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, v1::WorkloadModel> models_ ABSL_GUARDED_BY(mu_);
  // (device_id, metric) -> offset
  std::map<std::pair<std::string, std::string>, v1::DeviceOffset> offsets_
      ABSL_GUARDED_BY(mu_);
  int64_t next_sweep_id_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t next_run_id_ ABSL_GUARDED_BY(mu_) = 1;
  int64_t next_model_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_MEMORY_STORE_H_
