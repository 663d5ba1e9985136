// Test helper: a real SqliteStore on a temporary file holding sweeps of
// synthetic finished runs (spec, applied mode, minibatch records, result),
// written through the Store interface as the controller's ingest does.
// Not thread-safe; one per test.
#ifndef POWERSWEEP_TESTS_CONTROLLER_MODELING_STORED_RUNS_H_
#define POWERSWEEP_TESTS_CONTROLLER_MODELING_STORED_RUNS_H_

#include <optional>
#include <string>
#include <vector>

#include "common/fake_clock.h"
#include "gtest/gtest.h"
#include "storage/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace powersweep::testing {

struct SyntheticRun {
  v1::RunSpec spec;  // device_class, workload, power_mode, runtime, tenants
  std::optional<v1::PowerMode> actual;  // the applied mode's `actual`
  std::vector<double> e2e_s;            // one minibatch record each
  double energy_stall_j = 0;
  double energy_compute_j = 0;
  double energy_j = 0;
  double duration_s = 0;
  v1::Provenance energy_provenance = v1::PROVENANCE_UNSPECIFIED;
  std::string framework = "libtorch";  // "twin-model": a twin ran it
  v1::RunState final_state = v1::RUN_STATE_DONE;
  std::string device_id = "dev-0";
};

// A run spec of `device_class` for lenet5 on fashion-mnist.
inline v1::RunSpec LenetSpec(const std::string& device_class,
                             v1::Task task = v1::TASK_TRAIN,
                             int32_t batch_size = 64) {
  v1::RunSpec s;
  s.set_device_class(device_class);
  s.mutable_workload()->set_model("lenet5");
  s.mutable_workload()->set_dataset("fashion-mnist");
  s.mutable_workload()->set_task(task);
  s.mutable_workload()->set_batch_size(batch_size);
  s.mutable_workload()->set_minibatches(100);
  s.set_runtime(v1::RUNTIME_NATIVE);
  s.set_telemetry_hz(10);
  s.set_timeout_s(600);
  return s;
}

class StoredRuns {
 public:
  StoredRuns() : store_(OpenStore(dir_.path() + "/store.db")) {}

  SqliteStore* store() { return store_.get(); }
  FakeClock* clock() { return &clock_; }

  void AddDevice(const std::string& id, const std::string& device_class,
                 const v1::DeviceCapabilities& caps) {
    v1::DeviceIdentity identity;
    identity.set_device_id(id);
    identity.set_device_class(device_class);
    identity.set_platform(device_class == "host" ? "host" : "twin");
    ASSERT_TRUE(store_->UpsertDevice(identity, caps, clock_.Now()).ok());
  }

  // Stores a sweep of `runs` and finishes each as described. Returns the
  // sweep id (0 after a failed assertion); run ids follow the order given.
  int64_t AddSweep(const std::vector<SyntheticRun>& runs) {
    v1::SweepSpec spec;
    spec.set_name("synthetic");
    return AddSweep(runs, spec);
  }
  // The same with the sweep's own spec (repetitions, placement, ...).
  int64_t AddSweep(const std::vector<SyntheticRun>& runs,
                   const v1::SweepSpec& spec) {
    std::vector<v1::RunSpec> specs;
    for (const SyntheticRun& r : runs) specs.push_back(r.spec);
    auto sweep = store_->CreateSweep(spec, specs, clock_.Now());
    EXPECT_TRUE(sweep.ok()) << sweep.status();
    if (!sweep.ok()) return 0;
    auto stored = store_->ListRuns(*sweep);
    EXPECT_TRUE(stored.ok() && stored->size() == runs.size());
    if (!stored.ok() || stored->size() != runs.size()) return 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      Finish((*stored)[i].spec().run_id(), runs[i]);
    }
    return *sweep;
  }

  std::vector<int64_t> RunIds(int64_t sweep_id) {
    std::vector<int64_t> ids;
    auto runs = store_->ListRuns(sweep_id);
    EXPECT_TRUE(runs.ok());
    if (runs.ok()) {
      for (const auto& r : *runs) ids.push_back(r.spec().run_id());
    }
    return ids;
  }

 private:
  void Finish(int64_t id, const SyntheticRun& r) {
    if (r.final_state == v1::RUN_STATE_PENDING) return;
    const absl::Time now = clock_.Now();
    ASSERT_TRUE(
        store_->TransitionRun(id, v1::RUN_STATE_LEASED, r.device_id, "", now)
            .ok());
    ASSERT_TRUE(
        store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", now).ok());
    if (!r.e2e_s.empty()) {
      v1::DataBatch batch;
      batch.set_run_id(id);
      batch.set_seq(1);
      double t = 0;
      for (size_t i = 0; i < r.e2e_s.size(); ++i) {
        v1::MinibatchRecord* m = batch.add_minibatches();
        m->set_index(static_cast<int64_t>(i));
        m->set_t_start_s(t);
        m->set_compute_s(0.9 * r.e2e_s[i]);
        m->set_e2e_s(r.e2e_s[i]);
        m->set_samples(r.spec.workload().batch_size());
        t += r.e2e_s[i];
      }
      auto ingested = store_->IngestBatch(batch);
      ASSERT_TRUE(ingested.ok()) << ingested.status();
    }
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(r.final_state == v1::RUN_STATE_DONE);
    result.set_duration_s(r.duration_s);
    result.set_energy_j(r.energy_j);
    result.set_energy_stall_j(r.energy_stall_j);
    result.set_energy_compute_j(r.energy_compute_j);
    result.set_energy_provenance(r.energy_provenance);
    result.mutable_provenance()->set_framework(r.framework);
    if (r.actual.has_value()) {
      *result.mutable_applied_mode()->mutable_requested() = r.spec.power_mode();
      *result.mutable_applied_mode()->mutable_actual() = *r.actual;
    }
    ASSERT_TRUE(
        store_
            ->FinishRun(result, r.final_state,
                        r.final_state == v1::RUN_STATE_DONE ? "" : "broken",
                        now)
            .ok());
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
};

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_CONTROLLER_MODELING_STORED_RUNS_H_
