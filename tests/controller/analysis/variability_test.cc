// The device-instance variability report: from run metrics built in code
// (grouping, warnings, start temperature, metric filter) and from a sweep
// stored in a MemoryStore (instance_sweep.h: four boards, one 15% slower).
#include "controller/analysis/variability.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"
#include "tests/controller/analysis/instance_sweep.h"

namespace powersweep {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A done run of the instance cell on `device` with minibatch time `mb_ms`.
RunMetrics DoneRun(int64_t id, const std::string& device, double mb_ms,
               const std::string& preset = "MAXN") {
  RunMetrics m;
  m.run_id = id;
  m.spec = testing::InstanceSpec(v1::TASK_TRAIN, static_cast<int>(id % 3));
  m.spec.mutable_power_mode()->set_preset(preset);
  m.spec.set_run_id(id);
  m.spec.set_attempt(1 + static_cast<int>(id % 2));
  m.state = v1::RUN_STATE_DONE;
  m.device_id = device;
  m.minibatches = 10;
  m.mean_minibatch_s = mb_ms / 1000;
  m.samples_per_s = 32 / (mb_ms / 1000);
  m.samples = 320;
  m.binary_fingerprint = "bin-1";
  m.framework_fingerprint = "torch-1";
  return m;
}

const MetricVariability* Find(const CellVariability& cell,
                              VariabilityMetric metric) {
  for (const MetricVariability& m : cell.metrics) {
    if (m.info.metric == metric) return &m;
  }
  return nullptr;
}

std::vector<std::string> Devices(const MetricVariability& m) {
  std::vector<std::string> out;
  for (const DeviceVariability& d : m.devices) out.push_back(d.device_id);
  return out;
}

TEST(VariabilityMetricsTest, ParsesNamesAndRejectsUnknown) {
  EXPECT_EQ(ParseVariabilityMetric("energy-per-sample")->metric,
            VariabilityMetric::kEnergyPerSample);
  EXPECT_EQ(ParseVariabilityMetric("Minibatch_Time")->unit, "ms");
  const auto bad = ParseVariabilityMetric("latency");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--metric"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("idle_power"));
}

TEST(VariabilityMetricsTest, EnergyPerSampleNeedsEnergyAndSamples) {
  RunMetrics r = DoneRun(1, "a", 100);
  EXPECT_FALSE(VariabilityValue(r, VariabilityMetric::kEnergyPerSample));
  r.energy_j = 3.2;
  EXPECT_DOUBLE_EQ(*VariabilityValue(r, VariabilityMetric::kEnergyPerSample),
                   10.0);  // 3.2 J / 320 samples = 10 mJ
  EXPECT_DOUBLE_EQ(*VariabilityValue(r, VariabilityMetric::kMinibatchTime),
                   100);
  EXPECT_FALSE(VariabilityValue(r, VariabilityMetric::kIdlePower));
}

// Twins flagged one instance an outlier on baseload energy (-1.65%) only
// because its sampler took one tick fewer in the wait: the energy of a
// baseload run is its mean power over the requested duration.
TEST(VariabilityMetricsTest, BaseloadEnergyIsMeanPowerOverTheDuration) {
  RunMetrics r = DoneRun(1, "a", 100);
  r.spec.mutable_workload()->set_task(v1::TASK_BASELOAD);
  r.spec.mutable_workload()->set_duration_s(3.0);
  r.energy_j = 6.918 * 2.95;  // samples spanned 2.95 s of the 3 s wait
  r.mean_power_w = 6.918;
  EXPECT_DOUBLE_EQ(*VariabilityValue(r, VariabilityMetric::kEnergy),
                   6.918 * 3.0);
  r.spec.mutable_workload()->set_task(v1::TASK_TRAIN);
  EXPECT_DOUBLE_EQ(*VariabilityValue(r, VariabilityMetric::kEnergy),
                   6.918 * 2.95);
}

TEST(AnalyzeVariabilityTest, GroupsByCellThenDeviceIgnoringRepetitionAndAttempt) {
  std::vector<RunMetrics> runs = {
      DoneRun(1, "b", 101), DoneRun(2, "a", 100), DoneRun(3, "b", 103),
      DoneRun(4, "a", 102), DoneRun(5, "a", 100, "MODE_15W"),
      DoneRun(6, "c", 100, "MODE_15W")};
  runs.push_back(DoneRun(7, "a", 500));
  runs.back().state = v1::RUN_STATE_FAILED;
  runs.push_back(DoneRun(8, "", 100));
  const VariabilityReport r = AnalyzeVariability(runs);
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_THAT(r.cells[0].label, HasSubstr("xavier-agx | MAXN"));
  EXPECT_THAT(r.cells[0].run_ids, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(r.cells[0].device_ids, ElementsAre("a", "b"));
  const MetricVariability* mb =
      Find(r.cells[0], VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_THAT(Devices(*mb), ElementsAre("a", "b"));
  EXPECT_EQ(mb->devices[0].summary.n, 2);
  EXPECT_NEAR(mb->devices[0].summary.mean, 101, 1e-9);
  EXPECT_NEAR(mb->devices[1].summary.mean, 102, 1e-9);
  EXPECT_THAT(mb->devices[1].run_ids, ElementsAre(1, 3));
  // 2 devices: spread and F test, but no outlier check.
  EXPECT_TRUE(mb->across.has_anova);
  EXPECT_FALSE(mb->devices[0].figures.checked);
  EXPECT_THAT(r.cells[0].warnings,
              Contains(HasSubstr("no outlier check")));
  // No energy in these runs: no energy metrics.
  EXPECT_EQ(Find(r.cells[0], VariabilityMetric::kEnergy), nullptr);
  EXPECT_EQ(Find(r.cells[0], VariabilityMetric::kMeanPower), nullptr);
  EXPECT_THAT(r.warnings, Contains(HasSubstr("1 runs that are not done")));
  EXPECT_THAT(r.warnings,
              Contains(HasSubstr("runs without a device were left out: 8")));
}

TEST(AnalyzeVariabilityTest, WarnsAboutOneDeviceAndSingleRuns) {
  const VariabilityReport r = AnalyzeVariability(
      {DoneRun(1, "a", 100), DoneRun(2, "a", 101), DoneRun(3, "b", 99, "MODE_15W"),
       DoneRun(4, "c", 98, "MODE_15W"), DoneRun(5, "c", 97, "MODE_15W")});
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_THAT(r.cells[0].warnings,
              Contains(HasSubstr("only one device (a)")));
  EXPECT_THAT(r.cells[1].warnings,
              Contains("device b has 1 run: no within-device variance from it"));
  EXPECT_THAT(r.cells[1].warnings,
              Not(Contains(HasSubstr("device c has 1 run"))));
  const MetricVariability* mb =
      Find(r.cells[0], VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_FALSE(mb->across.has_anova);
}

TEST(AnalyzeVariabilityTest, DifferentBuildsAreWarnedAbout) {
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 101)};
  runs[3].binary_fingerprint = "bin-2";
  const VariabilityReport r = AnalyzeVariability(runs);
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_THAT(r.cells[0].warnings,
              Contains(HasSubstr("binary fingerprints bin-1, bin-2")));
}

TEST(AnalyzeVariabilityTest, DevicesRunningDifferentSoftwareAreWarnedAbout) {
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 101)};
  for (RunMetrics& r : runs) {
    r.run_device.set_module("Jetson-AGX");
    r.run_device.set_kernel("5.10.120-tegra");
    r.run_device.set_l4t_release(r.device_id == "a" ? "R35.4.1" : "R35.3.1");
  }
  const VariabilityReport r = AnalyzeVariability(runs);
  EXPECT_THAT(r.cells[0].warnings,
              Contains("devices differ in L4T release: a R35.4.1, b R35.3.1; "
                       "a difference may come from the software, not the "
                       "board"));
  EXPECT_THAT(r.cells[0].warnings, Not(Contains(HasSubstr("in kernel"))));
  EXPECT_THAT(r.cells[0].warnings, Not(Contains(HasSubstr("in module"))));
}

TEST(AnalyzeVariabilityTest, TwinsFingerprintsNameInstancesNotBuilds) {
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 101)};
  for (RunMetrics& r : runs) {
    r.framework = "twin-model";
    r.binary_fingerprint = "twin:xavier-agx:seed=42:instance=" + r.device_id;
  }
  const VariabilityReport r = AnalyzeVariability(runs);
  EXPECT_THAT(r.cells[0].warnings,
              Not(Contains(HasSubstr("different builds"))));
}

TEST(AnalyzeVariabilityTest, NotesNameTheMetricsTheyConcern) {
  // Idle power equal within each device (a twin's is deterministic): no F
  // test, with the reason; minibatch time varies within devices.
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 102)};
  for (RunMetrics& r : runs) r.idle_power_w = r.device_id == "a" ? 5 : 6;
  const VariabilityReport r = AnalyzeVariability(runs);
  EXPECT_THAT(r.cells[0].warnings,
              Contains("idle power: no variation within any device "
                       "(deterministic runs, e.g. twins): the F test is "
                       "meaningless, so no p-value"));
  // A note every metric has is given once, plain.
  EXPECT_THAT(r.cells[0].warnings,
              Contains("2 devices: no outlier check (it needs at least 3)"));
}

TEST(AnalyzeVariabilityTest, MeanStartTemperatureOfEachDevicesRuns) {
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 101)};
  runs[0].start_temp_c = 40;
  runs[1].start_temp_c = 44;
  runs[2].start_temp_c = 51;  // run 4 measured none
  const VariabilityReport r = AnalyzeVariability(runs);
  const MetricVariability* mb =
      Find(r.cells[0], VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_TRUE(mb->devices[0].has_start_temp);
  EXPECT_DOUBLE_EQ(mb->devices[0].mean_start_temp_c, 42);
  EXPECT_DOUBLE_EQ(mb->devices[1].mean_start_temp_c, 51);
  runs[2].start_temp_c.reset();
  const VariabilityReport none = AnalyzeVariability(runs);
  EXPECT_FALSE(Find(none.cells[0], VariabilityMetric::kMinibatchTime)
                   ->devices[1]
                   .has_start_temp);
}

TEST(AnalyzeVariabilityTest, IdlePowerIsAMetricWhenRunsMeasuredIt) {
  std::vector<RunMetrics> runs = {DoneRun(1, "a", 100), DoneRun(2, "a", 101),
                                  DoneRun(3, "b", 100), DoneRun(4, "b", 101)};
  runs[0].idle_power_w = 5.0;
  runs[1].idle_power_w = 5.2;
  runs[2].idle_power_w = 6.0;
  runs[3].idle_power_w = 6.2;
  const VariabilityReport r = AnalyzeVariability(runs);
  const MetricVariability* idle =
      Find(r.cells[0], VariabilityMetric::kIdlePower);
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(idle->devices[0].summary.mean, 5.1, 1e-12);
  EXPECT_NEAR(idle->devices[1].summary.mean, 6.1, 1e-12);
  EXPECT_NEAR(idle->across.max_min_ratio, 6.1 / 5.1, 1e-12);
}

TEST(AnalyzeVariabilityTest, MetricFilterKeepsOnlyThatMetric) {
  const VariabilityReport r = AnalyzeVariability(
      {DoneRun(1, "a", 100), DoneRun(2, "b", 101)}, VariabilityMetric::kThroughput);
  ASSERT_EQ(r.cells.size(), 1u);
  ASSERT_EQ(r.cells[0].metrics.size(), 1u);
  EXPECT_EQ(r.cells[0].metrics[0].info.name, "throughput");
}

class SweepVariabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sweep_ = testing::StoreInstanceSweep(&store_);
    ASSERT_GT(sweep_, 0);
    auto report = SweepVariability(&store_, sweep_);
    ASSERT_TRUE(report.ok()) << report.status();
    report_ = *std::move(report);
    ASSERT_EQ(report_.cells.size(), 2u);
  }

  MemoryStore store_;
  int64_t sweep_ = 0;
  VariabilityReport report_;
};

TEST_F(SweepVariabilityTest, PerDeviceMeansAndCis) {
  const CellVariability& cell = report_.cells[0];
  EXPECT_EQ(cell.label,
            "lenet5/fashion-mnist train bs=32 workers=0 | xavier-agx | MAXN");
  const MetricVariability* mb = Find(cell, VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  ASSERT_EQ(mb->devices.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    const DeviceVariability& dev = mb->devices[d];
    EXPECT_EQ(dev.device_id, testing::InstanceDevice(d));
    EXPECT_EQ(dev.summary.n, 3);
    EXPECT_NEAR(dev.summary.mean, testing::kInstanceMeanMs[d], 1e-9);
    EXPECT_NEAR(dev.summary.sd, 1, 1e-9);
    // mean -+ t_{0.975,2} x 1 / sqrt(3), t = 4.302652729911275 (SciPy).
    const double half = 4.302652729911275 / std::sqrt(3.0);
    EXPECT_NEAR(dev.summary.ci_low, testing::kInstanceMeanMs[d] - half, 1e-6);
    EXPECT_NEAR(dev.summary.ci_high, testing::kInstanceMeanMs[d] + half, 1e-6);
  }
  const MetricVariability* power = Find(cell, VariabilityMetric::kMeanPower);
  ASSERT_NE(power, nullptr);
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(power->devices[d].summary.mean, testing::kInstancePowerW[d],
                1e-9);
  }
}

TEST_F(SweepVariabilityTest, StartTemperatureAndIdlePowerFromTheConditions) {
  const CellVariability& cell = report_.cells[0];
  const MetricVariability* mb = Find(cell, VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  for (int d = 0; d < 4; ++d) {
    EXPECT_TRUE(mb->devices[d].has_start_temp);
    EXPECT_NEAR(mb->devices[d].mean_start_temp_c, 40 + 2 * d, 1e-9);
  }
  const MetricVariability* idle = Find(cell, VariabilityMetric::kIdlePower);
  ASSERT_NE(idle, nullptr);
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(idle->devices[d].summary.mean, testing::kInstanceIdleW[d],
                1e-9);
  }
  EXPECT_NEAR(idle->across.max_min_ratio, 5.1 / 4.9, 1e-9);
  // Placement pinned every run to its device; still one cell per workload.
  EXPECT_EQ(cell.device_ids.size(), 4u);
  EXPECT_FALSE(cell.key.devices_size() > 0);
}

TEST_F(SweepVariabilityTest, AcrossDeviceSdsAndIcc) {
  const MetricVariability* mb =
      Find(report_.cells[0], VariabilityMetric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  const stats::OneWayAnova& a = mb->across;
  ASSERT_TRUE(a.has_components);
  // See instance_sweep.h: MS_between 170.75, MS_within 1, n0 3.
  EXPECT_NEAR(a.ms_between, 170.75, 1e-6);
  EXPECT_NEAR(a.ms_within, 1, 1e-6);
  EXPECT_NEAR(a.sd_within, 1, 1e-6);
  EXPECT_NEAR(a.sd_between, std::sqrt(169.75 / 3), 1e-6);
  EXPECT_NEAR(a.icc, (169.75 / 3) / (169.75 / 3 + 1), 1e-9);
  EXPECT_NEAR(a.max_min_ratio, 115.0 / 99, 1e-9);
  // SD of the means 100, 101, 99, 115 over their mean 103.75.
  EXPECT_NEAR(a.cv, std::sqrt(170.75 / 3) / 103.75, 1e-9);
  EXPECT_LT(a.p_value, 1e-6);
}

TEST_F(SweepVariabilityTest, FifteenPercentSlowerBoardIsTheOutlier) {
  const CellVariability& cell = report_.cells[0];
  for (VariabilityMetric metric :
       {VariabilityMetric::kMinibatchTime, VariabilityMetric::kThroughput,
        VariabilityMetric::kEnergy, VariabilityMetric::kEnergyPerSample}) {
    const MetricVariability* m = Find(cell, metric);
    ASSERT_NE(m, nullptr);
    EXPECT_THAT(m->outlier_devices, ElementsAre("xavier-3"))
        << m->info.name;
  }
  const MetricVariability* mb = Find(cell, VariabilityMetric::kMinibatchTime);
  const DeviceVariability& slow = mb->devices[3];
  EXPECT_TRUE(slow.figures.outlier);
  EXPECT_NEAR(slow.figures.others_mean, 100, 1e-9);
  const double half = 4.302652729911275 * std::sqrt(4.0 / 3);
  EXPECT_NEAR(slow.figures.pi_low, 100 - half, 1e-6);
  EXPECT_NEAR(slow.figures.pi_high, 100 + half, 1e-6);
  EXPECT_NEAR(slow.figures.deviation_percent, 15, 1e-9);
  // Mean power is the same on xavier-0 and xavier-3: no outlier there.
  EXPECT_THAT(Find(cell, VariabilityMetric::kMeanPower)->outlier_devices,
              IsEmpty());
}

TEST_F(SweepVariabilityTest, BaseloadRunsAreACellOfIdlePowerPerDevice) {
  const CellVariability& cell = report_.cells[1];
  EXPECT_THAT(cell.label, HasSubstr("baseload | xavier-agx | MAXN"));
  EXPECT_EQ(Find(cell, VariabilityMetric::kMinibatchTime), nullptr);
  const MetricVariability* power = Find(cell, VariabilityMetric::kMeanPower);
  ASSERT_NE(power, nullptr);
  ASSERT_EQ(power->devices.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    EXPECT_NEAR(power->devices[d].summary.mean, testing::kInstanceIdleW[d],
                1e-9);
  }
  // One run per device: the spread of the means only.
  EXPECT_FALSE(power->across.has_anova);
  EXPECT_NEAR(power->across.max_min_ratio, 5.1 / 4.9, 1e-9);
  EXPECT_THAT(cell.warnings,
              Contains("device xavier-0 has 1 run: no within-device "
                       "variance from it"));
}

TEST(SweepVariabilityErrorsTest, UnknownSweepIsNotFound) {
  MemoryStore store;
  EXPECT_EQ(SweepVariability(&store, 99).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
