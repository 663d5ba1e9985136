// FakeStore: an in-memory Store with only what the sweep submitter and the
// run-summary tests need (CreateSweep, GetSweepSpec, ListRuns, GetRun,
// GetMinibatches, GetTelemetry, GetRunResult, and the sweep-table readers
// GetSweepAggregates, ListRunResults, FindBaseloads computed from those).
// Every other method returns
// Unimplemented. Counts CreateSweep calls; `fail_create` makes CreateSweep
// fail as a broken database would. Thread-safe (one mutex).
#ifndef POWERSWEEP_TESTS_CONTROLLER_SWEEP_FAKE_STORE_H_
#define POWERSWEEP_TESTS_CONTROLLER_SWEEP_FAKE_STORE_H_

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/record_aggregates.h"
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
  // Sets what a run's status says (state, device, sweep, task, ...).
  void PutStatus(const v1::RunStatus& status) {
    absl::MutexLock l(&mu_);
    runs_[status.spec().run_id()] = status;
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

  absl::StatusOr<std::vector<RunAggregates>> GetSweepAggregates(
      int64_t sweep_id) override {
    absl::MutexLock l(&mu_);
    std::vector<RunAggregates> out;
    for (const auto& [id, run] : runs_) {
      if (run.spec().sweep_id() != sweep_id) continue;
      RecordAggregator agg;
      for (const v1::MinibatchRecord& r : minibatches_[id]) {
        agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(),
                         r.loss());
      }
      std::vector<v1::TelemetrySample> tel = telemetry_[id];
      for (const v1::TelemetrySample& t : tel) {
        agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
      }
      std::stable_sort(tel.begin(), tel.end(), [](const auto& a, const auto& b) {
        return a.t_s() < b.t_s();
      });
      for (const v1::TelemetrySample& t : tel) {
        if (t.power_mw() > 0) {
          agg.AddPowerReading(t.t_s(), t.power_mw(), t.power_provenance());
        }
      }
      out.push_back({id, run.spec().attempt(), agg.Finish()});
    }
    return out;
  }
  absl::StatusOr<std::vector<v1::RunResult>> ListRunResults(
      int64_t sweep_id) override {
    absl::MutexLock l(&mu_);
    std::vector<v1::RunResult> out;
    for (const auto& [id, run] : runs_) {
      auto it = results_.find(id);
      if (run.spec().sweep_id() == sweep_id && it != results_.end()) {
        out.push_back(it->second);
      }
    }
    return out;
  }
  absl::StatusOr<std::vector<RunWithResult>> FindBaseloads(
      const std::string& device_id, const v1::PowerMode* mode) override {
    absl::MutexLock l(&mu_);
    std::vector<RunWithResult> out;
    for (const auto& [id, run] : runs_) {
      auto it = results_.find(id);
      if (it == results_.end() || run.state() != v1::RUN_STATE_DONE ||
          run.spec().workload().task() != v1::TASK_BASELOAD ||
          (!device_id.empty() && run.device_id() != device_id) ||
          (mode != nullptr &&
           !google::protobuf::util::MessageDifferencer::Equals(
               run.spec().power_mode(), *mode))) {
        continue;
      }
      out.push_back({run, it->second});
    }
    return out;
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
  absl::StatusOr<std::string> GetDatabaseId() override {
    return std::string("fake-database");
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
