// The agent's health check on a fake platform: it passes while the sensors
// answer, a board with power rails reports power and the board is cooler
// than the limit; it names what failed; a mode that did not read back
// keeps it failing until an idle check passes.
#include "agent/run/health_check.h"

#include <string>
#include <vector>

#include "common/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "agent/platform/fake_platform.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

// A board whose readings the test sets: power (0 = none), temperatures,
// whether it describes a measured rail, and power that appears only from
// the second reading (as RAPL's energy counters give it).
class SensorPlatform : public FakePlatform {
 public:
  SensorPlatform() : FakePlatform({0}) {}
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override {
    ++reads;
    times.push_back(sample->t_s());
    if (power_mw > 0 && reads > power_from_read - 1) {
      sample->set_power_mw(power_mw);
      v1::RailSample* rail = sample->add_rails();
      rail->set_name("VDD_IN");
      rail->set_power_mw(power_mw);
    }
    for (const auto& [name, celsius] : temps) {
      v1::Temperature* t = sample->add_temperatures();
      t->set_name(name);
      t->set_celsius(celsius);
    }
  }
  std::vector<SensorReport> DescribeSensors() override {
    if (!rails) return {};
    return {{"VDD_IN", "rail (board total)", "/sys/bus/i2c/...",
             v1::PROVENANCE_MEASURED}};
  }
  double power_mw = 5000;
  int power_from_read = 1;
  bool rails = true;
  std::vector<std::pair<std::string, double>> temps = {{"CPU-therm", 45}};
  int reads = 0;
  std::vector<double> times;
};

class HealthCheckTest : public ::testing::Test {
 protected:
  HealthChecker Make() { return HealthChecker(&platform_, &clock_, options_); }
  FakeClock clock_;
  SensorPlatform platform_;
  HealthCheckOptions options_;
};

TEST_F(HealthCheckTest, AnAnsweringCoolPoweredBoardPassesInOneSample) {
  HealthChecker checker = Make();
  v1::DeviceHealth h = checker.Check(/*idle=*/true);
  EXPECT_TRUE(h.healthy());
  EXPECT_EQ(h.reason(), "");
  EXPECT_EQ(h.checked_unix_ms(), absl::ToUnixMillis(clock_.Now()));
  EXPECT_EQ(platform_.reads, 1);
}

TEST_F(HealthCheckTest, TheHottestSensorAtTheLimitFailsButPmicIsIgnored) {
  platform_.temps = {{"PMIC-Die", 100}, {"CPU-therm", 60}, {"GPU-therm", 71}};
  options_.max_temp_c = 70;
  v1::DeviceHealth h = Make().Check(true);
  EXPECT_FALSE(h.healthy());
  EXPECT_EQ(h.reason(),
            "board temperature 71.0 C is at or above the limit of 70 C "
            "(--health_max_temp_c)");
  options_.max_temp_c = 95;
  EXPECT_TRUE(Make().Check(true).healthy());  // PMIC's 100 C does not count
}

TEST_F(HealthCheckTest, ABoardWithRailsReadingNoPowerFails) {
  platform_.power_mw = 0;
  v1::DeviceHealth h = Make().Check(true);
  EXPECT_FALSE(h.healthy());
  EXPECT_EQ(h.reason(), "the power rails read 0 mW");
  // It was read twice: once more after reread_after.
  EXPECT_EQ(platform_.reads, 2);
}

TEST_F(HealthCheckTest, ABoardWithoutRailsNeedsNoPower) {
  platform_.power_mw = 0;
  platform_.rails = false;
  EXPECT_TRUE(Make().Check(true).healthy());
}

TEST_F(HealthCheckTest, NoReadingAtAllFails) {
  platform_.power_mw = 0;
  platform_.rails = false;
  platform_.temps.clear();
  v1::DeviceHealth h = Make().Check(true);
  EXPECT_FALSE(h.healthy());
  EXPECT_THAT(h.reason(), HasSubstr("no sensor answered"));
}

TEST_F(HealthCheckTest, PowerFromTheSecondReadingLikeRaplPasses) {
  platform_.power_from_read = 2;
  HealthChecker checker = Make();
  clock_.Advance(absl::Seconds(3));
  EXPECT_TRUE(checker.Check(true).healthy());
  ASSERT_EQ(platform_.times.size(), 2u);
  // Advancing sample times: energy counters need them.
  EXPECT_GT(platform_.times[1], platform_.times[0]);
  EXPECT_DOUBLE_EQ(platform_.times[0], 3.0);
}

TEST_F(HealthCheckTest, AMarkFailsChecksUntilAnIdleCheckPasses) {
  HealthChecker checker = Make();
  checker.MarkUnhealthy("the power mode did not read back: cpu_cores: ...");
  // An assignment's check keeps the mark.
  v1::DeviceHealth h = checker.Check(/*idle=*/false);
  EXPECT_FALSE(h.healthy());
  EXPECT_EQ(h.reason(), "the power mode did not read back: cpu_cores: ...");
  EXPECT_FALSE(checker.Check(false).healthy());
  // An idle check that fails on its own keeps it too.
  platform_.temps = {{"CPU-therm", 99}};
  EXPECT_THAT(checker.Check(true).reason(), HasSubstr("board temperature"));
  platform_.temps = {{"CPU-therm", 50}};
  EXPECT_FALSE(checker.Check(false).healthy());
  // The next passing idle check ends it.
  EXPECT_TRUE(checker.Check(true).healthy());
  EXPECT_TRUE(checker.Check(false).healthy());
}

}  // namespace
}  // namespace powersweep
