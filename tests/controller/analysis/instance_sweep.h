// Test helper: a sweep of one cell run 3 times on each of four Xavier AGX
// boards, stored through the Store interface (records, then a result with
// energy) as the controller's ingest would. The figures are chosen so the
// expected report can be worked out by hand:
//
//   device    minibatch time (ms, reps 0..2)   mean power (W, reps 0..2)
//   xavier-0   99  100  101                     9.95  10.00  10.05
//   xavier-1  100  101  102                    10.05  10.10  10.15
//   xavier-2   98   99  100                     9.85   9.90   9.95
//   xavier-3  114  115  116  (+15%)             9.95  10.00  10.05
//
// Each run is pinned to its device (RunSpec.devices, as `placement:
// every_device` expands) and has 10 minibatches of 32 samples, all of that
// e2e time; energy = power x the minibatches' time (energy_span_s), so the
// mean power is the power above. Its conditions: start temperature 40 +
// 2 d + 0.5 (rep - 1) C (device means 40, 42, 44, 46) and idle power
// kInstanceIdleW[d] + 0.01 (rep - 1) W. Minibatch time: device means 100, 101, 99, 115; within SD
// 1; MS_between = 3 x 170.75 / 3 = 170.75, MS_within = 1, between SD
// sqrt(169.75 / 3) = 7.522; xavier-3 lies outside 100 -+ 4.303 x 1 x
// sqrt(4/3) (the others' prediction interval) and is the only outlier.
// Besides, one baseload run per device (idle power 5.0, 5.1, 4.9, 5.0 W
// for 10 s, no conditions). Not thread-safe.
#ifndef POWERSWEEP_TESTS_CONTROLLER_ANALYSIS_INSTANCE_SWEEP_H_
#define POWERSWEEP_TESTS_CONTROLLER_ANALYSIS_INSTANCE_SWEEP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "storage/store.h"

namespace powersweep::testing {

inline constexpr int kInstanceDevices = 4;
inline constexpr int kInstanceReps = 3;
inline constexpr double kInstanceMeanMs[kInstanceDevices] = {100, 101, 99,
                                                             115};
inline constexpr double kInstancePowerW[kInstanceDevices] = {10.0, 10.1, 9.9,
                                                             10.0};
inline constexpr double kInstanceIdleW[kInstanceDevices] = {5.0, 5.1, 4.9,
                                                            5.0};

inline std::string InstanceDevice(int d) {
  return "xavier-" + std::to_string(d);
}

inline v1::RunSpec InstanceSpec(v1::Task task, int rep) {
  v1::RunSpec s;
  s.set_device_class("xavier-agx");
  if (task != v1::TASK_BASELOAD) {
    s.mutable_workload()->set_model("lenet5");
    s.mutable_workload()->set_dataset("fashion-mnist");
    s.mutable_workload()->set_batch_size(32);
    s.mutable_workload()->set_minibatches(10);
  } else {
    s.mutable_workload()->set_duration_s(10);
  }
  s.mutable_workload()->set_task(task);
  s.mutable_power_mode()->set_preset("MAXN");
  s.set_runtime(v1::RUNTIME_NATIVE);
  s.set_repetition(rep);
  s.set_telemetry_hz(10);
  return s;
}

// Stores the sweep (train runs in rep-major order, then the baseloads) in
// `store` and finishes every run; returns the sweep id, 0 on failure.
inline int64_t StoreInstanceSweep(Store* store) {
  std::vector<v1::RunSpec> specs;
  std::vector<int> device_of;
  std::vector<double> e2e_s, power_w;
  std::vector<int> rep_of;
  for (int rep = 0; rep < kInstanceReps; ++rep) {
    for (int d = 0; d < kInstanceDevices; ++d) {
      specs.push_back(InstanceSpec(v1::TASK_TRAIN, rep));
      specs.back().add_devices(InstanceDevice(d));
      rep_of.push_back(rep);
      device_of.push_back(d);
      e2e_s.push_back((kInstanceMeanMs[d] + rep - 1) / 1000);
      power_w.push_back(kInstancePowerW[d] + 0.05 * (rep - 1));
    }
  }
  for (int d = 0; d < kInstanceDevices; ++d) {
    specs.push_back(InstanceSpec(v1::TASK_BASELOAD, 0));
    specs.back().add_devices(InstanceDevice(d));
    rep_of.push_back(0);
    device_of.push_back(d);
    e2e_s.push_back(0);
    power_w.push_back(kInstanceIdleW[d]);
  }
  v1::SweepSpec sweep;
  sweep.set_name("instances");
  absl::Time now = absl::FromUnixSeconds(1800000000);
  auto id = store->CreateSweep(sweep, specs, now);
  EXPECT_TRUE(id.ok()) << id.status();
  if (!id.ok()) return 0;
  auto runs = store->ListRuns(*id);
  EXPECT_TRUE(runs.ok() && runs->size() == specs.size());
  if (!runs.ok() || runs->size() != specs.size()) return 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const int64_t run_id = (*runs)[i].spec().run_id();
    const std::string device = InstanceDevice(device_of[i]);
    EXPECT_TRUE(
        store->TransitionRun(run_id, v1::RUN_STATE_LEASED, device, "", now)
            .ok());
    EXPECT_TRUE(
        store->TransitionRun(run_id, v1::RUN_STATE_RUNNING, "", "", now).ok());
    double span_s = 10;
    if (e2e_s[i] > 0) {
      v1::DataBatch batch;
      batch.set_run_id(run_id);
      batch.set_seq(1);
      for (int m = 0; m < 10; ++m) {
        v1::MinibatchRecord* r = batch.add_minibatches();
        r->set_index(m);
        r->set_t_start_s(m * e2e_s[i]);
        r->set_compute_s(0.9 * e2e_s[i]);
        r->set_e2e_s(e2e_s[i]);
        r->set_samples(32);
      }
      EXPECT_TRUE(store->IngestBatch(batch).ok());
      span_s = 10 * e2e_s[i];
    }
    v1::RunResult result;
    result.set_run_id(run_id);
    result.set_ok(true);
    result.set_duration_s(span_s);
    result.set_energy_j(power_w[i] * span_s);
    result.set_energy_span_s(span_s);
    result.set_energy_provenance(v1::PROVENANCE_MEASURED);
    if (e2e_s[i] == 0) {
      result.set_baseload_power_mw(1000 * power_w[i]);
    } else {
      const int d = device_of[i];
      const double rep = rep_of[i] - 1;
      result.mutable_conditions()->set_start_temp_c(40 + 2 * d + 0.5 * rep);
      result.mutable_conditions()->set_idle_power_mw(
          1000 * (kInstanceIdleW[d] + 0.01 * rep));
    }
    result.mutable_provenance()->set_binary_fingerprint("bin-1");
    result.mutable_provenance()->set_framework_fingerprint("torch-1");
    now += absl::Seconds(60);
    EXPECT_TRUE(store->FinishRun(result, v1::RUN_STATE_DONE, "", now).ok());
  }
  return *id;
}

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_CONTROLLER_ANALYSIS_INSTANCE_SWEEP_H_
