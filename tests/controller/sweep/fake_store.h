// FakeStore: an in-memory Store with only what the sweep submitter and the
// run-summary tests need (CreateSweep, GetSweepSpec, ListRuns, GetRun,
// GetMinibatches, GetTelemetry, GetRunResult). Every other method returns
// Unimplemented. Counts CreateSweep calls; `fail_create` makes CreateSweep
// fail as a broken database would. Thread-safe (one mutex).
#ifndef POWERSWEEP_TESTS_CONTROLLER_SWEEP_FAKE_STORE_H_
#define POWERSWEEP_TESTS_CONTROLLER_SWEEP_FAKE_STORE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "storage/store.h"

namespace powersweep {

class FakeStore : public Store {
 public:
  // ---- what the tests drive
  int create_sweep_calls() {
    absl::MutexLock l(&mu_);
    return create_sweep_calls_;
  }
  void set_fail_create(absl::Status s) {
    absl::MutexLock l(&mu_);
    fail_create_ = std::move(s);
  }
  // Adds a run (state PENDING) with its records; result may be null.
  void PutRun(int64_t run_id, std::vector<v1::MinibatchRecord> mb,
              std::vector<v1::TelemetrySample> tel,
              const v1::RunResult* result) {
    absl::MutexLock l(&mu_);
    v1::RunStatus& run = runs_[run_id];
    run.mutable_spec()->set_run_id(run_id);
    run.set_state(v1::RUN_STATE_PENDING);
    minibatches_[run_id] = std::move(mb);
    telemetry_[run_id] = std::move(tel);
    if (result != nullptr) results_[run_id] = *result;
  }

  // ---- implemented
  absl::StatusOr<int64_t> CreateSweep(const v1::SweepSpec& spec,
                                      const std::vector<v1::RunSpec>& runs,
                                      absl::Time now) override {
    absl::MutexLock l(&mu_);
    ++create_sweep_calls_;
    if (!fail_create_.ok()) return fail_create_;
    const int64_t sweep_id = static_cast<int64_t>(sweeps_.size()) + 1;
    sweeps_[sweep_id] = spec;
    for (const v1::RunSpec& r : runs) {
      const int64_t run_id = static_cast<int64_t>(runs_.size()) + 1;
      v1::RunStatus& st = runs_[run_id];
      *st.mutable_spec() = r;
      st.mutable_spec()->set_run_id(run_id);
      st.mutable_spec()->set_sweep_id(sweep_id);
      st.mutable_spec()->set_attempt(1);
      st.set_state(v1::RUN_STATE_PENDING);
      st.set_created_unix_ms(absl::ToUnixMillis(now));
    }
    return sweep_id;
  }
  absl::StatusOr<v1::SweepSpec> GetSweepSpec(int64_t sweep_id) override {
    absl::MutexLock l(&mu_);
    auto it = sweeps_.find(sweep_id);
    if (it == sweeps_.end())
      return absl::NotFoundError(absl::StrCat("sweep ", sweep_id));
    return it->second;
  }
  absl::StatusOr<std::vector<v1::RunStatus>> ListRuns(
      int64_t sweep_id) override {
    absl::MutexLock l(&mu_);
    std::vector<v1::RunStatus> out;
    for (const auto& [id, run] : runs_) {
      if (run.spec().sweep_id() == sweep_id) out.push_back(run);
    }
    return out;
  }
  absl::StatusOr<v1::RunStatus> GetRun(int64_t run_id) override {
    absl::MutexLock l(&mu_);
    auto it = runs_.find(run_id);
    if (it == runs_.end())
      return absl::NotFoundError(absl::StrCat("run ", run_id));
    return it->second;
  }
  absl::StatusOr<std::vector<v1::MinibatchRecord>> GetMinibatches(
      int64_t run_id) override {
    absl::MutexLock l(&mu_);
    return minibatches_[run_id];
  }
  absl::StatusOr<std::vector<v1::TelemetrySample>> GetTelemetry(
      int64_t run_id) override {
    absl::MutexLock l(&mu_);
    return telemetry_[run_id];
  }
  absl::StatusOr<v1::RunResult> GetRunResult(int64_t run_id) override {
    absl::MutexLock l(&mu_);
    auto it = results_.find(run_id);
    if (it == results_.end()) {
      return absl::NotFoundError(
          absl::StrCat("run ", run_id, " has no result"));
    }
    return it->second;
  }

  // ---- not needed by these tests
  absl::Status UpsertDevice(const v1::DeviceIdentity&,
                            const v1::DeviceCapabilities&,
                            absl::Time) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices() override {
    return Unimplemented();
  }
  absl::StatusOr<v1::SweepStatus> GetSweepStatus(int64_t) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::SweepStatus>> ListSweeps() override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRuns(int) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::RunSpec>> ListPendingRunsFor(
      const PendingFilter&, int) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::RunStatus>> ListActiveRuns(
      const std::string&) override {
    return Unimplemented();
  }
  absl::Status TransitionRun(int64_t, v1::RunState, const std::string&,
                             const std::string&, absl::Time) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<RunStateChange>> GetRunHistory(int64_t) override {
    return Unimplemented();
  }
  absl::StatusOr<IngestOutcome> IngestBatch(const v1::DataBatch&) override {
    return Unimplemented();
  }
  absl::StatusOr<int64_t> CountBatches(int64_t) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<int64_t>> ListBatchSeqs(int64_t) override {
    return Unimplemented();
  }
  absl::Status SaveAppliedMode(int64_t, const v1::AppliedPowerMode&) override {
    return Unimplemented();
  }
  absl::Status FinishRun(const v1::RunResult&, v1::RunState, const std::string&,
                         absl::Time) override {
    return Unimplemented();
  }
  absl::Status ExportCsv(
      int64_t, const std::string&,
      const std::function<void(const std::string&)>&) override {
    return Unimplemented();
  }
  absl::StatusOr<int64_t> SaveModel(const v1::WorkloadModel&) override {
    return Unimplemented();
  }
  absl::StatusOr<std::vector<v1::WorkloadModel>> ListModels() override {
    return Unimplemented();
  }
  absl::StatusOr<v1::WorkloadModel> GetModel(int64_t) override {
    return Unimplemented();
  }

 private:
  static absl::Status Unimplemented() {
    return absl::UnimplementedError("not in FakeStore");
  }

  absl::Mutex mu_;
  int create_sweep_calls_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Status fail_create_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, v1::SweepSpec> sweeps_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, v1::RunStatus> runs_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::vector<v1::MinibatchRecord>> minibatches_
      ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::vector<v1::TelemetrySample>> telemetry_
      ABSL_GUARDED_BY(mu_);
  std::map<int64_t, v1::RunResult> results_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_CONTROLLER_SWEEP_FAKE_STORE_H_
