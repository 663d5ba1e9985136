#include "controller/modeling/queries.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::HasSubstr;

ModePoint P(int cores, double time_s, double energy_j) {
  return ModePoint{CustomMode{cores, 1000000, 0, 0}, time_s, energy_j,
                   energy_j / time_s};
}

std::vector<int> Cores(const std::vector<ModePoint>& points) {
  std::vector<int> out;
  for (const ModePoint& p : points) out.push_back(p.mode.cpu_cores);
  return out;
}

TEST(ParetoFrontTest, KeepsExactlyTheUndominatedPoints) {
  // (time, energy): 1 (1,10) 2 (2,6) 3 (3,7) dominated by 2, 4 (4,3),
  // 5 (5,3) dominated by 4, 6 (2,8) dominated by 2, 7 (6,2), 8 (4,3) ties 4.
  const std::vector<ModePoint> points = {P(3, 3, 7), P(1, 1, 10), P(5, 5, 3),
                                         P(2, 2, 6), P(4, 4, 3), P(6, 2, 8),
                                         P(7, 6, 2), P(8, 4, 3)};
  EXPECT_EQ(Cores(ParetoFront(points)), (std::vector<int>{1, 2, 4, 8, 7}));
  EXPECT_TRUE(ParetoFront({}).empty());
}

TEST(FrontMembershipTest, SaysWhichPointDominates) {
  const std::vector<ModePoint> points = {P(1, 1, 10), P(2, 2, 6), P(3, 3, 7),
                                         P(4, 2.5, 5), P(5, 4, 3)};
  absl::StatusOr<FrontMembership> m = CheckOnFront(points, points[2].mode);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->on_front);
  ASSERT_TRUE(m->dominated_by.has_value());
  // Dominated by 2 (2, 6) and 4 (2.5, 5): the least energy is reported.
  EXPECT_EQ(m->dominated_by->mode.cpu_cores, 4);
  EXPECT_DOUBLE_EQ(m->point.time_s, 3);

  absl::StatusOr<FrontMembership> front = CheckOnFront(points, points[0].mode);
  ASSERT_TRUE(front.ok());
  EXPECT_TRUE(front->on_front);
  EXPECT_FALSE(front->dominated_by.has_value());

  absl::StatusOr<FrontMembership> missing =
      CheckOnFront(points, CustomMode{9, 1, 2, 3});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("is not among the 5 modes queried"));
}

// A 3 x 3 grid: cores 1..3 x CPU 1, 2, 3 GHz with time = 12 / (cores * f)
// and power = 2 + cores * f^2.
std::vector<ModePoint> Grid() {
  std::vector<ModePoint> out;
  for (int n = 1; n <= 3; ++n) {
    for (int f = 1; f <= 3; ++f) {
      const double t = 12.0 / (n * f);
      const double p = 2 + n * f * f;
      out.push_back(ModePoint{CustomMode{n, f * 1000000, 0, 0}, t, p * t, p});
    }
  }
  return out;
}

TEST(QueriesTest, LeastEnergyWithinATimeBudget) {
  // Within 4 s (n * f >= 3), energy 12 / (n f) * (2 + n f^2) J: (1,3) 44,
  // (2,2) 30, (2,3) 40, (3,1) 20, (3,2) 28, (3,3) 38.7. Least: (3,1).
  absl::StatusOr<ModePoint> best = LeastEnergyWithinTime(Grid(), 4);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->mode.cpu_cores, 3);
  EXPECT_EQ(best->mode.cpu_freq_khz, 1000000);
  EXPECT_DOUBLE_EQ(best->energy_j, 20);
}

TEST(QueriesTest, FastestWithinAPowerBudget) {
  // Power <= 10 W: (1,1) 3, (1,2) 6, (1,3) 11 no, (2,1) 4, (2,2) 10,
  // (3,1) 5. Fastest: (2,2) 3 s.
  absl::StatusOr<ModePoint> best = FastestWithinPower(Grid(), 10);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->mode.cpu_cores, 2);
  EXPECT_EQ(best->mode.cpu_freq_khz, 2000000);
}

TEST(QueriesTest, FastestWithinAnEnergyBudget) {
  // Energy <= 25 J: (2,1) 24 J in 6 s, (3,1) 20 J in 4 s. Fastest (3,1).
  absl::StatusOr<ModePoint> best = FastestWithinEnergy(Grid(), 25);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->mode.cpu_cores, 3);
  EXPECT_EQ(best->mode.cpu_freq_khz, 1000000);
}

TEST(QueriesTest, NothingWithinBudgetSaysTheBestAchievable) {
  absl::StatusOr<ModePoint> t = LeastEnergyWithinTime(Grid(), 1);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(t.status().message(),
              HasSubstr("no mode has epoch time <= 1 s (the fastest takes "
                        "1.333 s: cores=3 cpu=3000000kHz"));
  absl::StatusOr<ModePoint> p = FastestWithinPower(Grid(), 2.5);
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(p.status().message(),
              HasSubstr("no mode has mean power <= 2.5 W (the lowest is 3 W: "
                        "cores=1 cpu=1000000kHz"));
  absl::StatusOr<ModePoint> e = FastestWithinEnergy(Grid(), 10);
  EXPECT_EQ(e.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(e.status().message(),
              HasSubstr("no mode has epoch energy <= 10 J (the lowest is 20 J"));
}

TEST(QueriesTest, RejectsBadBudgetsAndEmptyInput) {
  EXPECT_EQ(LeastEnergyWithinTime(Grid(), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(FastestWithinPower(Grid(), -3).status().message(),
              HasSubstr("power budget must be positive and finite, got -3"));
  EXPECT_THAT(FastestWithinEnergy({}, 3).status().message(),
              HasSubstr("no modes to query"));
}

}  // namespace
}  // namespace powersweep::modeling
