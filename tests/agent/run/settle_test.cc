// Settling before a run: the board is read until it has cooled to its idle
// reference plus the band (or for a fixed time), and the run's conditions
// carry the start temperature, the idle power and how the wait ended.
#include "agent/run/settle.h"

#include <cmath>

#include "common/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "agent/platform/fake_platform.h"

namespace powersweep {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;

// A board that cools exponentially from `hot_c` towards `idle_c` (time
// constant 20 s) from the moment Heat() is called, at 5 W idle; a PMIC
// sensor reads a constant 100 C as on real Jetsons.
class CoolingPlatform : public FakePlatform {
 public:
  CoolingPlatform(FakeClock* clock, bool has_sensor = true)
      : FakePlatform({0}), clock_(clock), has_sensor_(has_sensor) {}
  void Heat(double hot_c) {
    hot_c_ = hot_c;
    heated_ns_ = clock_->MonotonicNanos();
  }
  double TempNow() {
    const double t = (clock_->MonotonicNanos() - heated_ns_) * 1e-9;
    return kIdleC + (hot_c_ - kIdleC) * std::exp(-t / 20.0);
  }
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override {
    ++reads_;
    sample->set_power_mw(5000);
    sample->set_power_provenance(v1::PROVENANCE_MEASURED);
    if (!has_sensor_) return;
    v1::Temperature* pmic = sample->add_temperatures();
    pmic->set_name("PMIC-Die");
    pmic->set_celsius(100);
    v1::Temperature* cpu = sample->add_temperatures();
    cpu->set_name("CPU-therm");
    cpu->set_celsius(TempNow());
  }
  int reads_ = 0;
  static constexpr double kIdleC = 40;

 private:
  FakeClock* clock_;
  bool has_sensor_;
  double hot_c_ = kIdleC;
  int64_t heated_ns_ = 0;
};

v1::Settle Band(double band, double max_wait_s) {
  v1::Settle s;
  s.set_temp_band_c(band);
  s.set_max_wait_s(max_wait_s);
  return s;
}

const auto kNever = [] { return false; };

TEST(SettleTest, WaitsUntilTheBoardIsWithinTheBandOfItsIdleTemperature) {
  FakeClock clock;
  CoolingPlatform board(&clock);
  IdleReference reference;
  // First run on a cool board: settled at once, reference 40 C.
  v1::RunConditions first =
      SettleBoard(Band(2, 300), &board, &clock, &reference, kNever);
  EXPECT_EQ(first.settle_outcome(), "settled");
  EXPECT_EQ(first.settle_waited_s(), 0);
  EXPECT_THAT(first.start_temp_c(), DoubleNear(40, 1e-9));
  // After a run the board is at 60 C: 20 s * ln(20 / 2) = 46 s to 42 C.
  board.Heat(60);
  v1::RunConditions c =
      SettleBoard(Band(2, 300), &board, &clock, &reference, kNever);
  EXPECT_EQ(c.settle_outcome(), "settled");
  EXPECT_EQ(c.settle_waited_s(), 47);  // read once a second
  EXPECT_LE(c.start_temp_c(), 42.0);
  EXPECT_GT(c.start_temp_c(), 41.5);
  EXPECT_EQ(c.idle_reference_c(), 40);
  EXPECT_EQ(c.idle_power_mw(), 5000);
  EXPECT_EQ(c.idle_samples(), 48);
  EXPECT_EQ(c.idle_power_provenance(), v1::PROVENANCE_MEASURED);
  EXPECT_EQ(c.device().device_id(), "fake-0");
}

TEST(SettleTest, GivesUpAfterMaxWaitAndSaysHowFarItWas) {
  FakeClock clock;
  CoolingPlatform board(&clock);
  IdleReference reference;
  reference.Observe(40);
  board.Heat(70);
  v1::RunConditions c =
      SettleBoard(Band(1, 10), &board, &clock, &reference, kNever);
  EXPECT_EQ(c.settle_waited_s(), 10);
  EXPECT_THAT(c.settle_outcome(),
              HasSubstr("not settled after 10s (58.2 C, idle reference "
                        "40.0 C + 1 C)"));
}

TEST(SettleTest, WithoutASensorItDoesNotWaitAndSaysSo) {
  FakeClock clock;
  CoolingPlatform board(&clock, /*has_sensor=*/false);
  IdleReference reference;
  v1::RunConditions c =
      SettleBoard(Band(2, 300), &board, &clock, &reference, kNever);
  EXPECT_EQ(c.settle_outcome(), "no temperature sensor");
  EXPECT_EQ(c.settle_waited_s(), 0);
  EXPECT_FALSE(c.has_start_temp_c());
  EXPECT_EQ(c.idle_power_mw(), 5000);
}

TEST(SettleTest, AFixedWaitReadsOnceASecondAndAveragesThePower) {
  FakeClock clock;
  CoolingPlatform board(&clock);
  IdleReference reference;
  v1::Settle s;
  s.set_seconds(5);
  v1::RunConditions c = SettleBoard(s, &board, &clock, &reference, kNever);
  EXPECT_EQ(c.settle_outcome(), "fixed wait");
  EXPECT_EQ(c.settle_waited_s(), 5);
  EXPECT_EQ(board.reads_, 6);
  EXPECT_EQ(c.idle_samples(), 6);
}

TEST(SettleTest, NoSettleIsOneReadingAndNoWait) {
  FakeClock clock;
  CoolingPlatform board(&clock);
  board.Heat(55);
  IdleReference reference;
  v1::RunConditions c =
      SettleBoard(v1::Settle(), &board, &clock, &reference, kNever);
  EXPECT_EQ(c.settle_outcome(), "");
  EXPECT_EQ(board.reads_, 1);
  EXPECT_THAT(c.start_temp_c(), DoubleNear(55, 1e-9));  // PMIC's 100 skipped
}

TEST(SettleTest, ACancelEndsTheWait) {
  FakeClock clock;
  CoolingPlatform board(&clock);
  IdleReference reference;
  reference.Observe(40);
  board.Heat(80);
  int polls = 0;
  v1::RunConditions c = SettleBoard(Band(1, 300), &board, &clock, &reference,
                                    [&] { return ++polls > 3; });
  EXPECT_EQ(c.settle_outcome(), "cancelled while settling");
  EXPECT_EQ(c.settle_waited_s(), 3);
}

}  // namespace
}  // namespace powersweep
