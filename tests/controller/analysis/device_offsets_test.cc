// Calibration offsets from the variability report of instance_sweep.h's
// four boards (one 15% slower), and their round trip through a Store.
#include "controller/analysis/device_offsets.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"
#include "tests/controller/analysis/instance_sweep.h"

namespace powersweep {
namespace {

class DeviceOffsetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sweep_ = testing::StoreInstanceSweep(&store_);
    ASSERT_GT(sweep_, 0);
    auto report = SweepVariability(&store_, sweep_);
    ASSERT_TRUE(report.ok()) << report.status();
    report_ = *std::move(report);
  }

  // The mean energy per sample (mJ) of device d by construction: energy
  // = (P_d + 0.05 (r-1)) x 10 x (m_d + r - 1) / 1000 J over 320 samples.
  static double EnergyPerSample(int d) {
    double sum = 0;
    for (int r = 0; r < testing::kInstanceReps; ++r) {
      const double power = testing::kInstancePowerW[d] + 0.05 * (r - 1);
      const double e2e = (testing::kInstanceMeanMs[d] + r - 1) / 1000;
      sum += power * 10 * e2e / 320 * 1000;
    }
    return sum / testing::kInstanceReps;
  }

  MemoryStore store_;
  int64_t sweep_ = 0;
  VariabilityReport report_;
};

TEST_F(DeviceOffsetsTest, TimeAndEnergyOverTheClassMean) {
  const std::vector<v1::DeviceOffset> offsets =
      DeviceOffsetsFrom(report_, sweep_, 1234);
  ASSERT_EQ(offsets.size(), 8u);  // 4 devices x (energy, time)
  double energy_mean = 0;
  for (int d = 0; d < 4; ++d) energy_mean += EnergyPerSample(d) / 4;
  for (int d = 0; d < 4; ++d) {
    const v1::DeviceOffset& energy = offsets[2 * d];
    const v1::DeviceOffset& time = offsets[2 * d + 1];
    EXPECT_EQ(time.device_id(), testing::InstanceDevice(d));
    EXPECT_EQ(time.metric(), "time");
    EXPECT_EQ(energy.metric(), "energy");
    EXPECT_EQ(time.device_class(), "xavier-agx");
    // Minibatch means 100, 101, 99, 115 over their mean 103.75.
    EXPECT_NEAR(time.factor(), testing::kInstanceMeanMs[d] / 103.75, 1e-9);
    EXPECT_NEAR(energy.factor(), EnergyPerSample(d) / energy_mean, 1e-9);
    // One train cell (the baseload cell has no minibatches), 3 runs.
    EXPECT_EQ(time.cells(), 1);
    EXPECT_EQ(time.runs(), 3);
    EXPECT_EQ(time.sweep_id(), sweep_);
    EXPECT_EQ(time.saved_unix_ms(), 1234);
  }
  EXPECT_NEAR(offsets[7].factor(), 115 / 103.75, 1e-9);  // the slow board
}

TEST_F(DeviceOffsetsTest, AreSavedInTheStore) {
  auto saved = SaveDeviceOffsets(&store_, report_, sweep_, 99);
  ASSERT_TRUE(saved.ok()) << saved.status();
  auto listed = store_.ListDeviceOffsets("xavier-3");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[1].metric(), "time");
  EXPECT_NEAR((*listed)[1].factor(), 115 / 103.75, 1e-9);
}

TEST(DeviceOffsetsFromTest, CellsWithOneDeviceGiveNone) {
  MemoryStore store;
  VariabilityReport one;
  CellVariability cell;
  cell.key.set_device_class("xavier-agx");
  MetricVariability m;
  m.info = *ParseVariabilityMetric("minibatch_time");
  m.devices.resize(1);
  m.devices[0].device_id = "xavier-0";
  m.devices[0].summary.n = 3;
  m.devices[0].summary.mean = 100;
  m.across.mean_of_means = 100;
  cell.metrics.push_back(m);
  one.cells.push_back(cell);
  EXPECT_TRUE(DeviceOffsetsFrom(one, 1, 0).empty());
  auto saved = SaveDeviceOffsets(&store, one, 1, 0);
  ASSERT_TRUE(saved.ok());
  EXPECT_TRUE(saved->empty());
  EXPECT_TRUE(store.ListDeviceOffsets("")->empty());
}

}  // namespace
}  // namespace powersweep
