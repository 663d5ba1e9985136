// Statistics against reference values. Where the expected numbers come
// from:
// - [table]: printed Student t tables (e.g. Abramowitz & Stegun table
//   26.10; any statistics textbook's appendix): t_{0.975, 1} = 12.706,
//   t_{0.975, 10} = 2.228, t_{0.975, 30} = 2.042, to 3 decimals.
// - [R]: R's published `t.test` output for two datasets: Student's sleep
//   data, `t.test(extra ~ group, data = sleep)` (R's own example: "t =
//   -1.8608, df = 17.776, p-value = 0.07939, 95 percent confidence
//   interval: -3.3654832 0.2054832"), and ts1/ts2 below (an R session
//   quoted in a public Q&A: "t = -1.8325, df = 17.9, p-value = 0.08356,
//   95 percent confidence interval: -2.1469104 0.1469104").
// - [quad]: stats_reference.py beside this file, which integrates the t
//   density numerically (Simpson's rule) instead of using the incomplete
//   beta function, so it shares no code or method with stats.cc. It also
//   reproduces every [R] figure above to the printed digits.
// - [closed form]: identities of the incomplete beta function.
#include "controller/analysis/stats.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::stats {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Student's sleep data (R `datasets::sleep`): extra hours of sleep.
const std::vector<double> kSleepGroup1 = {0.7, -1.6, -0.2, -1.2, -0.1,
                                          3.4, 3.7,  0.8,  0.0,  2.0};
const std::vector<double> kSleepGroup2 = {1.9, 0.8, 1.1, 0.1, -0.1,
                                          4.4, 5.5, 1.6, 4.6, 3.4};
const std::vector<double> kTs1 = {11, 9, 10, 11, 10, 12, 9, 11, 12, 9};
const std::vector<double> kTs2 = {11, 13, 10, 13, 12, 9, 11, 12, 12, 11};

TEST(DescriptiveTest, MeanSdMedian) {
  EXPECT_DOUBLE_EQ(Mean({1, 2, 3, 4}), 2.5);
  // Deviations -1.5, -0.5, 0.5, 1.5: sum of squares 5, over n - 1 = 3.
  EXPECT_NEAR(SampleSd({1, 2, 3, 4}), std::sqrt(5.0 / 3.0), 1e-15);
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(DescriptiveTest, EmptyAndSingleValuesGiveZerosNotNaN) {
  EXPECT_EQ(Mean({}), 0);
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(SampleSd({}), 0);
  EXPECT_EQ(SampleSd({7}), 0);
}

TEST(DescriptiveTest, NonFiniteValuesAreDropped) {
  EXPECT_DOUBLE_EQ(Mean({1, kNaN, 3, kInf}), 2);
  EXPECT_DOUBLE_EQ(Median({kNaN, 1, 3}), 2);
  SampleSummary s = Summarize({kNaN, 2, 4});
  EXPECT_EQ(s.n, 2);
  EXPECT_TRUE(std::isfinite(s.ci_low) && std::isfinite(s.ci_high));
}

TEST(IncompleteBetaTest, ClosedForms) {
  // [closed form] I_x(1,1) = x; I_x(a,1) = x^a; I_x(1,b) = 1-(1-x)^b;
  // I_{1/2}(a,a) = 1/2; I_x(a,b) = 1 - I_{1-x}(b,a).
  for (double x : {0.0, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, x), x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(3.5, 1, x), std::pow(x, 3.5), 1e-14)
        << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(1, 2.25, x),
                1 - std::pow(1 - x, 2.25), 1e-14)
        << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(2.5, 0.5, x),
                1 - RegularizedIncompleteBeta(0.5, 2.5, 1 - x), 1e-14)
        << x;
  }
  for (double a : {0.5, 1.7, 12.0, 150.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(a, a, 0.5), 0.5, 1e-13) << a;
  }
}

TEST(StudentTTest, QuantilesMatchPrintedTables) {
  // [table]
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 1), 12.706, 5e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 10), 2.228, 5e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 30), 2.042, 5e-4);
}

TEST(StudentTTest, QuantilesForFractionalDof) {
  // [quad]
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 10), 2.228138851986313, 1e-9);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 4.5), 2.658912347204325, 1e-9);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 2.5), 3.5746548420037385, 1e-9);
  // Between the table's t_{0.975, 4} = 2.776 and t_{0.975, 5} = 2.571.
  const double q = StudentTTwoSidedQuantile(0.95, 4.5);
  EXPECT_LT(q, 2.776);
  EXPECT_GT(q, 2.571);
}

TEST(StudentTTest, TwoSidedPForFractionalDof) {
  // [quad]
  EXPECT_NEAR(StudentTTwoSidedP(2.0, 3.7), 0.12181720190523848, 1e-10);
  EXPECT_NEAR(StudentTTwoSidedP(-2.0, 3.7), 0.12181720190523848, 1e-10);
  EXPECT_NEAR(StudentTTwoSidedP(1.0, 0.7), 0.5503866725199715, 1e-10);
  EXPECT_NEAR(StudentTTwoSidedP(0.5, 12.25), 0.6259356016016611, 1e-10);
}

TEST(StudentTTest, CdfIsSymmetricAndQuantileInvertsIt) {
  EXPECT_DOUBLE_EQ(StudentTCdf(0, 5.5), 0.5);
  EXPECT_NEAR(StudentTCdf(1.3, 6.2) + StudentTCdf(-1.3, 6.2), 1, 1e-14);
  // dof = 1 is the Cauchy distribution: CDF 1/2 + atan(t)/pi.
  EXPECT_NEAR(StudentTCdf(2.0, 1), 0.5 + std::atan(2.0) / M_PI, 1e-13);
  for (double dof : {0.3, 1.0, 2.7, 9.0, 250.0}) {
    for (double level : {0.5, 0.9, 0.95, 0.999}) {
      const double q = StudentTTwoSidedQuantile(level, dof);
      EXPECT_NEAR(StudentTTwoSidedP(q, dof), 1 - level, 1e-10)
          << "dof " << dof << " level " << level;
    }
  }
  // Large dof approaches the normal: z_{0.975} = 1.959964.
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 1e6), 1.959964, 1e-5);
}

TEST(StudentTTest, DegenerateArgumentsAreFinite) {
  EXPECT_EQ(StudentTTwoSidedP(kInf, 3), 0);
  EXPECT_EQ(StudentTTwoSidedP(1e200, 3), 0);
  EXPECT_EQ(StudentTTwoSidedP(kNaN, 3), 1);
  EXPECT_EQ(StudentTTwoSidedP(1, 0), 1);
  EXPECT_EQ(StudentTTwoSidedQuantile(0.95, 0), 0);
  EXPECT_TRUE(std::isfinite(StudentTTwoSidedQuantile(kNaN, 3)));
  EXPECT_TRUE(std::isfinite(StudentTTwoSidedQuantile(1.0, 3)));
}

TEST(SummarizeTest, ConfidenceIntervalOfAKnownSample) {
  // [quad] mean 10.4, sd 1.17379, t_{0.975, 9} = 2.262157.
  SampleSummary s = Summarize(kTs1);
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.mean, 10.4);
  EXPECT_NEAR(s.sd, 1.1737877907772671, 1e-12);
  EXPECT_DOUBLE_EQ(s.median, 10.5);
  ASSERT_TRUE(s.has_ci);
  EXPECT_NEAR(s.ci_low, 9.56032279772343, 1e-8);
  EXPECT_NEAR(s.ci_high, 11.239677202276571, 1e-8);
}

TEST(SummarizeTest, OneValueHasNoInterval) {
  SampleSummary s = Summarize({3.5});
  EXPECT_EQ(s.n, 1);
  EXPECT_FALSE(s.has_ci);
  EXPECT_EQ(s.ci_low, 3.5);
  EXPECT_EQ(s.ci_high, 3.5);
}

TEST(WelchTest, SleepDataMatchesR) {
  // [R] and [quad]: R reports group 1 - group 2, i.e. other = group 1.
  WelchTest w = Welch(kSleepGroup2, kSleepGroup1);
  ASSERT_TRUE(w.tested);
  EXPECT_NEAR(w.t, -1.8608134674868526, 1e-10);
  EXPECT_NEAR(w.dof, 17.776473516178495, 1e-9);
  EXPECT_NEAR(w.p_value, 0.07939414018735624, 1e-9);
  EXPECT_NEAR(w.ci_low, -3.3654832307116838, 1e-8);
  EXPECT_NEAR(w.ci_high, 0.20548323071168428, 1e-8);
  // As printed by R (rounded).
  EXPECT_NEAR(w.p_value, 0.07939, 5e-6);
  EXPECT_NEAR(w.dof, 17.776, 5e-4);
  EXPECT_FALSE(w.significant);
  // Means 2.33 (baseline) and 0.75: 0.75 / 2.33 - 1 = -67.81%.
  EXPECT_NEAR(w.difference, -1.58, 1e-12);
  EXPECT_NEAR(w.difference_percent, -158 / 2.33, 1e-9);
  EXPECT_NEAR(w.ci_low_percent, 100 * -3.3654832307116838 / 2.33, 1e-6);
  EXPECT_NEAR(w.ci_high_percent, 100 * 0.20548323071168428 / 2.33, 1e-6);
}

TEST(WelchTest, SecondRExample) {
  // [R] and [quad]: ts1 - ts2.
  WelchTest w = Welch(kTs2, kTs1);
  ASSERT_TRUE(w.tested);
  EXPECT_NEAR(w.t, -1.8325416653445787, 1e-10);
  EXPECT_NEAR(w.dof, 17.900310146211783, 1e-9);
  EXPECT_NEAR(w.p_value, 0.0835597916192442, 1e-9);
  EXPECT_NEAR(w.ci_low, -2.1469103661046742, 1e-8);
  EXPECT_NEAR(w.ci_high, 0.14691036610467423, 1e-8);
}

TEST(WelchTest, SwappingSidesFlipsTheSignOnly) {
  WelchTest a = Welch(kSleepGroup1, kSleepGroup2);
  WelchTest b = Welch(kSleepGroup2, kSleepGroup1);
  EXPECT_NEAR(a.t, -b.t, 1e-12);
  EXPECT_NEAR(a.p_value, b.p_value, 1e-12);
  EXPECT_NEAR(a.ci_low, -b.ci_high, 1e-12);
}

TEST(WelchTest, ClearDifferenceIsSignificant) {
  WelchTest w = Welch({10.0, 10.2, 9.9, 10.1, 10.0}, {12.0, 12.1, 11.9, 12.2, 12.0});
  ASSERT_TRUE(w.tested);
  EXPECT_TRUE(w.significant);
  EXPECT_LT(w.p_value, 1e-6);
  EXPECT_NEAR(w.difference_percent, 100 * (12.04 - 10.04) / 10.04, 1e-9);
  EXPECT_GT(w.ci_low_percent, 0);
  EXPECT_TRUE(w.note.empty()) << w.note;
}

TEST(WelchTest, FewerThanTwoValuesOnASideIsNotTested) {
  WelchTest w = Welch({10.0}, {11.0, 12.0, 13.0});
  EXPECT_FALSE(w.tested);
  EXPECT_FALSE(w.significant);
  EXPECT_EQ(w.p_value, 1);
  EXPECT_THAT(w.note, HasSubstr("baseline"));
  ASSERT_TRUE(w.has_difference);
  EXPECT_DOUBLE_EQ(w.difference_percent, 20);
  WelchTest o = Welch({11.0, 12.0}, {13.0});
  EXPECT_FALSE(o.tested);
  EXPECT_THAT(o.note, HasSubstr("other"));
}

TEST(WelchTest, EmptySideHasNoDifference) {
  WelchTest w = Welch({}, {1.0, 2.0});
  EXPECT_FALSE(w.has_difference);
  EXPECT_FALSE(w.tested);
  EXPECT_THAT(w.note, HasSubstr("baseline"));
}

TEST(WelchTest, ZeroVarianceEqualMeansIsNotTested) {
  WelchTest w = Welch({5.0, 5.0, 5.0}, {5.0, 5.0});
  EXPECT_FALSE(w.tested);
  EXPECT_TRUE(w.zero_spread);
  EXPECT_EQ(w.p_value, 1);
  EXPECT_FALSE(w.significant);
  EXPECT_EQ(w.difference_percent, 0);
  EXPECT_EQ(w.ci_low, 0);
  EXPECT_EQ(w.ci_high, 0);
}

TEST(WelchTest, ZeroVarianceDifferentMeansIsNotMeaningfulNotSignificant) {
  // Deterministic twin data: a tiny difference with no spread was called
  // significant (p = 0); there is nothing to weigh it against.
  WelchTest w = Welch({4.0, 4.0}, {5.0, 5.0, 5.0});
  EXPECT_FALSE(w.tested);
  EXPECT_TRUE(w.zero_spread);
  EXPECT_FALSE(w.significant);
  EXPECT_EQ(w.p_value, 1);
  EXPECT_THAT(w.note, HasSubstr("not meaningful"));
  ASSERT_TRUE(w.has_difference);
  EXPECT_DOUBLE_EQ(w.difference_percent, 25);
  EXPECT_DOUBLE_EQ(w.ci_low_percent, 25);
  EXPECT_DOUBLE_EQ(w.ci_high_percent, 25);
  // Rounding noise (SD 1e-16 of the value) counts as no spread.
  WelchTest noise = Welch({1.015, 1.015 + 2e-16}, {1.01501, 1.01501});
  EXPECT_FALSE(noise.tested);
  EXPECT_TRUE(noise.zero_spread);
  EXPECT_FALSE(noise.significant);
}

TEST(WelchTest, OneSideWithoutVarianceUsesTheOthersDof) {
  // se^2 = s_o^2 / n_o only: dof = n_o - 1.
  WelchTest w = Welch({3.0, 3.0, 3.0}, {4.0, 5.0, 6.0, 7.0});
  ASSERT_TRUE(w.tested);
  EXPECT_NEAR(w.dof, 3, 1e-12);
  EXPECT_GT(w.p_value, 0);
  EXPECT_LT(w.p_value, 1);
}

TEST(WelchTest, ZeroBaselineMeanHasNoPercent) {
  WelchTest w = Welch({-1.0, 1.0}, {2.0, 3.0});
  EXPECT_TRUE(w.tested);
  EXPECT_FALSE(w.has_percent);
  EXPECT_EQ(w.difference_percent, 0);
  EXPECT_THAT(w.note, HasSubstr("baseline mean is 0"));
}

TEST(WelchTest, OutputsAreNaNFreeOnOddInputs) {
  const std::vector<std::vector<double>> inputs = {
      {}, {kNaN}, {0.0}, {0.0, 0.0}, {1e-300, 2e-300}, {1e300, -1e300, kInf},
      {1.0, 1.0 + 1e-15}};
  for (const auto& a : inputs) {
    for (const auto& b : inputs) {
      WelchTest w = Welch(a, b);
      for (double v : {w.difference, w.difference_percent, w.dof, w.p_value,
                       w.ci_low, w.ci_high, w.ci_low_percent,
                       w.ci_high_percent}) {
        EXPECT_FALSE(std::isnan(v));
      }
      EXPECT_FALSE(std::isnan(w.t));
    }
  }
}

}  // namespace
}  // namespace powersweep::stats
