// Observations from a real SqliteStore: the done runs of a sweep grouped
// by workload, each reduced to the mode the device really ran and its epoch
// time and energy; runs that cannot be used are listed with the reason.
#include "controller/modeling/observations.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::modeling {
namespace {

using ::powersweep::testing::LenetSpec;
using ::powersweep::testing::StoredRuns;
using ::powersweep::testing::SyntheticRun;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr double kTrainMinibatches = 937;  // floor(60000 / 64)

v1::PowerMode Knobs(int cores, int64_t cpu_khz, int64_t gpu_hz,
                    int64_t mem_hz) {
  v1::PowerMode m;
  m.set_cpu_cores(cores);
  m.set_cpu_freq_khz(cpu_khz);
  m.set_gpu_freq_hz(gpu_hz);
  m.set_mem_freq_hz(mem_hz);
  return m;
}

SyntheticRun XavierRun(const v1::PowerMode& requested,
                       std::optional<v1::PowerMode> actual) {
  SyntheticRun r;
  r.spec = LenetSpec("xavier-agx");
  *r.spec.mutable_power_mode() = requested;
  r.actual = actual;
  r.e2e_s = {0.010, 0.012, 0.014, 0.012};  // mean 0.012 s
  r.energy_stall_j = 0.1;
  r.energy_compute_j = 0.7;  // 0.2 J per minibatch
  r.energy_j = 5;            // includes start-up; not used
  r.duration_s = 2;
  r.energy_provenance = v1::PROVENANCE_SIMULATED;
  r.framework = "twin-model";
  r.device_id = "xavier-agx-twin-0";
  return r;
}

const ObservationGroup* Find(const SweepObservations& obs, int32_t batch,
                             v1::Task task = v1::TASK_TRAIN) {
  for (const ObservationGroup& g : obs.groups) {
    if (g.key.batch_size == batch && g.key.task == task) return &g;
  }
  return nullptr;
}

TEST(ObservationsTest, EpochTimeAndEnergyFromTheRunsRecordsAndPhaseEnergy) {
  StoredRuns s;
  v1::PowerMode maxn;
  maxn.set_preset("MAXN");
  const v1::PowerMode actual = Knobs(8, 2265600, 1377000000, 2133000000);
  const int64_t sweep = s.AddSweep({XavierRun(maxn, actual)});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  const ObservationGroup& g = obs->groups[0];
  EXPECT_EQ(g.key.device_class, "xavier-agx");
  EXPECT_EQ(g.key.model, "lenet5");
  EXPECT_EQ(g.key.tenants, 1);
  EXPECT_EQ(g.epoch.unit(), "epoch");
  EXPECT_EQ(g.epoch.minibatches(), 937);
  EXPECT_EQ(g.epoch.samples(), 60000);
  ASSERT_EQ(g.runs.size(), 1u);
  const RunObservation& r = g.runs[0];
  EXPECT_EQ(r.mode, (CustomMode{8, 2265600, 1377000000, 2133000000}));
  EXPECT_TRUE(r.mode_applied);
  EXPECT_TRUE(r.simulated);
  EXPECT_EQ(r.minibatches, 4);
  EXPECT_NEAR(r.epoch_time_s, 0.012 * kTrainMinibatches, 1e-9);
  // (stall + compute energy) / minibatches x minibatches per epoch.
  EXPECT_NEAR(r.epoch_energy_j, 0.2 * kTrainMinibatches, 1e-9);
  EXPECT_EQ(r.energy_provenance, v1::PROVENANCE_SIMULATED);
  EXPECT_EQ(r.device_id, "xavier-agx-twin-0");
}

TEST(ObservationsTest, ModeIsWhatTheDeviceRanNotWhatWasAsked) {
  StoredRuns s;
  // Asked for 8 cores at the top CPU step; the device applied 4 cores.
  const v1::PowerMode asked = Knobs(8, 2265600, 0, 0);
  const v1::PowerMode actual = Knobs(4, 1190400, 624750000, 1600000000);
  const int64_t sweep = s.AddSweep({XavierRun(asked, actual)});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  EXPECT_EQ(obs->groups[0].runs[0].mode,
            (CustomMode{4, 1190400, 624750000, 1600000000}));
}

TEST(ObservationsTest, PresetWithoutAppliedModeResolvesThroughTheCatalog) {
  StoredRuns s;
  v1::PowerMode preset;
  preset.set_preset("MODE_10W");
  const int64_t sweep = s.AddSweep({XavierRun(preset, std::nullopt)});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  const RunObservation& r = obs->groups[0].runs[0];
  // Caps 1200 MHz CPU, 520 MHz GPU: the highest steps under them.
  EXPECT_EQ(r.mode, (CustomMode{2, 1190400, 420750000, 1065600000}));
  EXPECT_FALSE(r.mode_applied);
}

TEST(ObservationsTest, HostModesHaveOnlyCoresAndCpuFrequency) {
  StoredRuns s;
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  caps.add_cpu_freqs_khz(1000000);
  caps.add_cpu_freqs_khz(2000000);
  s.AddDevice("host-0", "host", caps);
  SyntheticRun r;
  r.spec = LenetSpec("host");
  r.spec.mutable_power_mode()->set_cpu_cores(2);
  v1::PowerMode actual;
  actual.set_cpu_cores(2);    // CPU frequency not set: the device's maximum
  actual.set_gpu_freq_hz(5);  // nonsense a host cannot have
  r.actual = actual;
  r.e2e_s = {0.02, 0.02};
  r.energy_j = 30;
  r.duration_s = 3;  // 10 W, no phase split
  r.energy_provenance = v1::PROVENANCE_MODELED;
  r.device_id = "host-0";
  SyntheticRun emulated = r;
  emulated.actual->set_cpu_freq_khz(1000000);
  const int64_t sweep = s.AddSweep({r, emulated});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  const ObservationGroup& g = obs->groups[0];
  ASSERT_EQ(g.runs.size(), 2u);
  EXPECT_EQ(g.runs[0].mode, (CustomMode{2, 2000000, 0, 0}));
  EXPECT_EQ(g.runs[1].mode, (CustomMode{2, 1000000, 0, 0}));
  EXPECT_FALSE(g.runs[0].simulated);
  // No phase split: mean power over the run x epoch time.
  const double epoch_s = 0.02 * kTrainMinibatches;
  EXPECT_NEAR(g.runs[0].epoch_energy_j, 10 * epoch_s, 1e-9);
  EXPECT_EQ(g.runs[0].energy_provenance, v1::PROVENANCE_MODELED);
  ASSERT_EQ(g.devices.size(), 1u);
  EXPECT_EQ(g.devices[0].cpu_cores(), 4);
}

TEST(ObservationsTest, GroupsByWorkloadAndUsesTheTestSplitForInference) {
  StoredRuns s;
  const v1::PowerMode m = Knobs(8, 2265600, 1377000000, 2133000000);
  SyntheticRun a = XavierRun(m, m);
  SyntheticRun b = XavierRun(m, m);
  SyntheticRun c = XavierRun(m, m);
  c.spec.mutable_workload()->set_batch_size(128);
  SyntheticRun d = XavierRun(m, m);
  d.spec.mutable_workload()->set_task(v1::TASK_INFER);
  const int64_t sweep = s.AddSweep({a, b, c, d});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 3u);
  ASSERT_NE(Find(*obs, 64), nullptr);
  EXPECT_EQ(Find(*obs, 64)->runs.size(), 2u);
  ASSERT_NE(Find(*obs, 128), nullptr);
  EXPECT_EQ(Find(*obs, 128)->epoch.minibatches(), 468);  // 60000 / 128
  const ObservationGroup* infer = Find(*obs, 64, v1::TASK_INFER);
  ASSERT_NE(infer, nullptr);
  EXPECT_EQ(infer->epoch.split(), "test");
  EXPECT_EQ(infer->epoch.minibatches(), 156);  // 10000 / 64
  EXPECT_NEAR(infer->runs[0].epoch_time_s, 0.012 * 156, 1e-9);
}

TEST(ObservationsTest, UnknownDatasetIsPerRun) {
  StoredRuns s;
  const v1::PowerMode m = Knobs(8, 2265600, 1377000000, 2133000000);
  SyntheticRun r = XavierRun(m, m);
  r.spec.mutable_workload()->set_dataset("imagenet-tiny");
  const int64_t sweep = s.AddSweep({r});
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  EXPECT_EQ(obs->groups[0].epoch.unit(), "run");
  EXPECT_THAT(obs->groups[0].epoch.text(), HasSubstr("per run"));
  EXPECT_NEAR(obs->groups[0].runs[0].epoch_time_s, 0.012 * 4, 1e-9);
}

TEST(ObservationsTest, RunsThatCannotBeUsedAreListedWithTheReason) {
  StoredRuns s;
  const v1::PowerMode m = Knobs(8, 2265600, 1377000000, 2133000000);
  SyntheticRun good = XavierRun(m, m);
  SyntheticRun failed = XavierRun(m, m);
  failed.final_state = v1::RUN_STATE_FAILED;
  SyntheticRun empty = XavierRun(m, m);
  empty.e2e_s.clear();
  SyntheticRun pending = XavierRun(m, m);
  pending.final_state = v1::RUN_STATE_PENDING;
  const int64_t sweep = s.AddSweep({good, failed, empty, pending});
  const std::vector<int64_t> ids = s.RunIds(sweep);
  auto obs = CollectObservations(s.store(), sweep, PowerCatalog::Default());
  ASSERT_TRUE(obs.ok()) << obs.status();
  ASSERT_EQ(obs->groups.size(), 1u);
  EXPECT_EQ(obs->groups[0].runs.size(), 1u);
  EXPECT_THAT(obs->skipped,
              UnorderedElementsAre(
                  "run " + std::to_string(ids[1]) + ": not done (failed)",
                  "run " + std::to_string(ids[2]) + ": no minibatch records",
                  "run " + std::to_string(ids[3]) + ": not done (pending)"));
}

TEST(ObservationsTest, UnknownSweepIsNotFound) {
  StoredRuns s;
  auto obs = CollectObservations(s.store(), 77, PowerCatalog::Default());
  EXPECT_TRUE(absl::IsNotFound(obs.status())) << obs.status();
}

}  // namespace
}  // namespace powersweep::modeling
