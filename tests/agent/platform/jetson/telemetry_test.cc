// Telemetry of every fixture: rail powers, the total (never double
// counted), GPU load and clock, EMC rate, temperatures (PMIC and sensors
// that are off skipped), per-core frequency.
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

struct Expected {
  std::string fixture;
  // Rail name and its power computed from the fixture's files:
  // mV * mA / 1000 (JetPack 5/6) or in_powerN_input (JetPack 4).
  std::vector<std::pair<std::string, double>> rails;
  double total_mw;
  double gpu_util;
  int64_t gpu_hz;
  int64_t mem_hz;
  int64_t core_khz;
  std::vector<std::string> temps;
};

const Expected kBoards[] = {
    // Orin AGX: no total rail; VIN_SYS_5V0 is one rail among others.
    {"orin-agx-jp5",
     {{"VDD_GPU_SOC", 5016 * 476 / 1000.0},
      {"VDD_CPU_CV", 5016 * 159 / 1000.0},
      {"VIN_SYS_5V0", 5008 * 703 / 1000.0},
      {"VDDQ_VDD2_1V8AO", 5008 * 60 / 1000.0}},
     (5016 * 476 + 5016 * 159 + 5008 * 703 + 5008 * 60) / 1000.0, 0.25,
     306000000, 2133000000, 729600,
     {"CPU-therm", "GPU-therm", "SOC0-therm", "SOC1-therm", "SOC2-therm",
      "tj-therm"}},
    {"orin-agx-jp6",
     {{"VDD_GPU_SOC", 5016 * 476 / 1000.0},
      {"VDD_CPU_CV", 5016 * 159 / 1000.0},
      {"VIN_SYS_5V0", 5008 * 703 / 1000.0}},
     (5016 * 476 + 5016 * 159 + 5008 * 703) / 1000.0, 0.25, 306000000,
     2133000000, 729600,
     {"cpu-thermal", "gpu-thermal", "soc0-thermal", "soc1-thermal",
      "soc2-thermal", "tj-thermal"}},
    // Xavier AGX: no total rail, the total is the sum.
    {"xavier-agx-jp4",
     {{"GPU", 463}, {"CPU", 618}, {"SOC", 2936}, {"CV", 0}, {"VDDRQ", 309},
      {"SYS5V", 3306}},
     463 + 618 + 2936 + 0 + 309 + 3306, 0.5, 318750000, 2133000000, 1190400,
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "AUX-therm",
      "Tboard_tegra", "Tdiode_tegra", "thermal-fan-est"}},
    {"xavier-agx-jp5",
     {{"GPU", 19200 * 24 / 1000.0},
      {"CPU", 19200 * 32 / 1000.0},
      {"SOC", 19200 * 152 / 1000.0},
      {"CV", 0},
      {"VDDRQ", 19200 * 16 / 1000.0},
      {"SYS5V", 4960 * 666 / 1000.0}},
     (19200 * (24 + 32 + 152 + 16) + 4960 * 666) / 1000.0, 0.5, 318750000,
     2133000000, 1190400,
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "AUX-therm",
      "Tboard_tegra", "Tdiode_tegra", "thermal-fan-est"}},
    // Xavier NX: VDD_IN is the total; the other rails are parts of it.
    {"xavier-nx-jp5",
     {{"VDD_IN", 5000 * 552 / 1000.0},
      {"VDD_CPU_GPU_CV", 5000 * 130 / 1000.0},
      {"VDD_SOC", 5000 * 130 / 1000.0}},
     5000 * 552 / 1000.0, 0.0, 114750000, 1600000000, 1420800,
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "AUX-therm",
      "thermal-fan-est"}},
    // Nano (iio): POM_5V_IN is the total; no EMC debugfs.
    {"nano-jp4",
     {{"POM_5V_IN", 933}, {"POM_5V_GPU", 0}, {"POM_5V_CPU", 84}},
     933, 1.0, 76800000, 0, 102000,
     {"AO-therm", "CPU-therm", "GPU-therm", "PLL-therm", "thermal-fan-est"}},
};

class JetsonTelemetryTest : public ::testing::TestWithParam<Expected> {};

TEST_P(JetsonTelemetryTest, SampleMatchesTheBoardFiles) {
  const Expected& e = GetParam();
  auto rig = MakeRig(e.fixture);
  v1::TelemetrySample s;
  s.add_cores();
  s.add_cores();
  rig->platform->Sample({0, 1}, &s);

  ASSERT_EQ(s.rails_size(), static_cast<int>(e.rails.size()));
  double sum = 0;
  for (int i = 0; i < s.rails_size(); ++i) {
    EXPECT_EQ(s.rails(i).name(), e.rails[i].first);
    EXPECT_DOUBLE_EQ(s.rails(i).power_mw(), e.rails[i].second);
    EXPECT_EQ(s.rails(i).provenance(), v1::PROVENANCE_MEASURED);
    sum += s.rails(i).power_mw();
  }
  EXPECT_DOUBLE_EQ(s.power_mw(), e.total_mw);
  EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_MEASURED);
  EXPECT_LE(s.power_mw(), sum + 1e-9);  // never more than every rail added
  EXPECT_DOUBLE_EQ(s.gpu_util(), e.gpu_util);
  EXPECT_EQ(s.gpu_freq_hz(), e.gpu_hz);
  EXPECT_EQ(s.mem_freq_hz(), e.mem_hz);
  EXPECT_EQ(s.cores(0).freq_khz(), e.core_khz);
  EXPECT_EQ(s.cores(1).freq_khz(), e.core_khz);
  std::vector<std::string> temps;
  for (const v1::Temperature& t : s.temperatures()) {
    temps.push_back(t.name());
    EXPECT_GT(t.celsius(), 20.0);
    EXPECT_LT(t.celsius(), 60.0);  // PMIC's constant 100 C is not here
  }
  EXPECT_EQ(temps, e.temps);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, JetsonTelemetryTest, ::testing::ValuesIn(kBoards),
    [](const ::testing::TestParamInfo<Expected>& info) {
      std::string name = info.param.fixture;
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

TEST(JetsonTelemetryTest, FollowsTheFilesAsTheyChange) {
  auto rig = MakeRig("xavier-nx-jp5");
  v1::TelemetrySample first;
  rig->platform->Sample({}, &first);
  {
    std::ofstream(rig->root +
                  "/sys/bus/i2c/devices/7-0040/hwmon/hwmon1/curr1_input")
        << "1104\n";
    std::ofstream(rig->root + "/sys/devices/platform/gpu.0/load") << "875\n";
    std::ofstream(rig->root +
                  "/sys/devices/virtual/thermal/thermal_zone1/temp")
        << "-256000\n";
  }
  v1::TelemetrySample second;
  rig->platform->Sample({}, &second);
  EXPECT_DOUBLE_EQ(first.power_mw(), 2760.0);
  EXPECT_DOUBLE_EQ(second.power_mw(), 5000 * 1104 / 1000.0);
  EXPECT_DOUBLE_EQ(second.gpu_util(), 0.875);
  EXPECT_EQ(second.temperatures_size(), first.temperatures_size() - 1);
}

TEST(JetsonTelemetryTest, AppliedModeShowsInTheNextSample) {
  auto rig = MakeRig("orin-agx-jp6");
  ASSERT_TRUE(rig->platform->Apply(Mode(4, 1497600, 816000000, 3199000000)).ok());
  v1::TelemetrySample s;
  s.add_cores();
  rig->platform->Sample(rig->platform->RunCpus(), &s);
  EXPECT_EQ(s.cores(0).freq_khz(), 1497600);
  EXPECT_EQ(s.gpu_freq_hz(), 816000000);
  EXPECT_EQ(s.mem_freq_hz(), 3199000000);
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
