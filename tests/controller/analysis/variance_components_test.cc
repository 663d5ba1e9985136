// One-way random-effects ANOVA against published and independently computed
// values. Where the expected numbers come from:
// - [R]: R's printed `anova(lm(...))` tables for two of R's own data sets,
//   reproduced in countless R tutorials:
//   PlantGrowth (balanced, 3 x 10): "group 2 3.7663 1.8832 4.8461 0.01591;
//   Residuals 27 10.4921 0.3886";
//   chickwts (unbalanced, 6 feeds, 10-14 chicks): "feed 5 231129 46226
//   15.365 5.936e-10; Residuals 65 195556 3009".
// - [S&F]: Shrout & Fleiss (1979), "Intraclass correlations: uses in
//   assessing rater reliability", Psychol. Bull. 86(2), Table 2 (6 targets,
//   4 judges) and its one-way figures BMS = 11.24, WMS = 6.26,
//   ICC(1,1) = .17.
// - [ref]: variance_components_reference.py beside this file (exact
//   rational arithmetic for sums of squares, n0, components, ICC, CV and
//   max/min; SciPy's Cephes-based scipy.stats.f.sf and t.ppf for the F tail
//   and t quantile; scipy.stats.f_oneway as a cross-check), printed to 16
//   digits. It reproduces every [R] and [S&F] figure to the printed digits.
// - [hand]: small cases worked out by hand in the comment beside them.
#include "controller/analysis/variance_components.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::stats {
namespace {

using ::testing::HasSubstr;

constexpr double kTol = 1e-6;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<std::vector<double>> kPlantGrowth = {
    {4.17, 5.58, 5.18, 6.11, 4.50, 4.61, 5.17, 4.53, 5.33, 5.14},
    {4.81, 4.17, 4.41, 3.59, 5.87, 3.83, 6.03, 4.89, 4.32, 4.69},
    {6.31, 5.12, 5.54, 5.50, 5.37, 5.29, 4.92, 6.15, 5.80, 5.26}};

const std::vector<std::vector<double>> kChickwts = {
    {368, 390, 379, 260, 404, 318, 352, 359, 216, 222, 283, 332},
    {179, 160, 136, 227, 217, 168, 108, 124, 143, 140},
    {309, 229, 181, 141, 260, 203, 148, 169, 213, 257, 244, 271},
    {325, 257, 303, 315, 380, 153, 263, 242, 206, 344, 258},
    {243, 230, 248, 327, 329, 250, 193, 271, 316, 267, 199, 171, 158, 248},
    {423, 340, 392, 339, 341, 226, 320, 295, 334, 322, 297, 318}};

// Shrout & Fleiss Table 2, one group per target (its 4 judges' ratings).
const std::vector<std::vector<double>> kShroutFleiss = {
    {9, 2, 5, 8}, {6, 1, 3, 2}, {8, 4, 6, 8},
    {7, 1, 2, 6}, {10, 5, 6, 9}, {6, 2, 4, 7}};

TEST(FUpperTailTest, MatchesScipyAndClosedForms) {
  // [ref] scipy.stats.f.sf.
  EXPECT_NEAR(FUpperTail(2.5, 3, 7.5), 0.13819360276446288, 1e-12);
  EXPECT_NEAR(FUpperTail(7.0, 4, 200), 2.708543969649955e-05, 1e-15);
  // [hand] F(2, 2): P(F >= f) = 1 / (1 + f). F(d, d) at 1 is 1/2.
  EXPECT_NEAR(FUpperTail(40, 2, 2), 1.0 / 41, 1e-14);
  EXPECT_NEAR(FUpperTail(1, 10, 10), 0.5, 1e-14);
  // [hand] F(1, 1): 1 - (2 / pi) atan(sqrt(f)).
  EXPECT_NEAR(FUpperTail(0.3, 1, 1), 1 - 2 / M_PI * std::atan(std::sqrt(0.3)),
              1e-14);
  EXPECT_EQ(FUpperTail(0, 3, 4), 1);
  EXPECT_EQ(FUpperTail(kNaN, 3, 4), 1);
  EXPECT_EQ(FUpperTail(kInf, 3, 4), 0);
  EXPECT_EQ(FUpperTail(2, 0, 4), 1);
}

TEST(OneWayAnovaTest, PlantGrowthMatchesRsAnovaTable) {
  const OneWayAnova a = OneWayRandomEffects(kPlantGrowth);
  ASSERT_TRUE(a.has_anova);
  EXPECT_EQ(a.k, 3);
  EXPECT_EQ(a.n_total, 30);
  EXPECT_EQ(a.df_between, 2);
  EXPECT_EQ(a.df_within, 27);
  // [R] to the printed digits.
  EXPECT_NEAR(a.ss_between, 3.7663, 5e-5);
  EXPECT_NEAR(a.ss_within, 10.4921, 5e-5);
  EXPECT_NEAR(a.ms_between, 1.8832, 5e-5);
  EXPECT_NEAR(a.ms_within, 0.3886, 5e-5);
  EXPECT_NEAR(a.f, 4.8461, 5e-5);
  EXPECT_NEAR(a.p_value, 0.01591, 5e-6);
  // [ref] to 1e-6.
  EXPECT_NEAR(a.grand_mean, 5.073, kTol);
  EXPECT_NEAR(a.ss_between, 3.76634, kTol);
  EXPECT_NEAR(a.ss_within, 10.49209, kTol);
  EXPECT_NEAR(a.ms_between, 1.88317, kTol);
  EXPECT_NEAR(a.ms_within, 0.3885959259259259, kTol);
  EXPECT_NEAR(a.f, 4.846087862380136, kTol);
  EXPECT_NEAR(a.p_value, 0.0159099583256229, kTol);
  EXPECT_NEAR(a.n0, 10, kTol);
  EXPECT_NEAR(a.var_between, 0.1494574074074074, kTol);
  EXPECT_NEAR(a.var_within, 0.3885959259259259, kTol);
  EXPECT_NEAR(a.sd_between, 0.3865972159850707, kTol);
  EXPECT_NEAR(a.sd_within, 0.6233746272715356, kTol);
  ASSERT_TRUE(a.has_icc);
  EXPECT_NEAR(a.icc, 0.2777743360151548, kTol);
  ASSERT_TRUE(a.has_cv);
  EXPECT_NEAR(a.cv, 0.08554209871839062, kTol);
  ASSERT_TRUE(a.has_max_min);
  EXPECT_NEAR(a.max_min_ratio, 1.1855824930272474, kTol);
  // Group means: R's lm coefficients 5.032, 5.032 - 0.371, 5.032 + 0.494.
  EXPECT_NEAR(a.groups[0].mean, 5.032, kTol);
  EXPECT_NEAR(a.groups[1].mean, 4.661, kTol);
  EXPECT_NEAR(a.groups[2].mean, 5.526, kTol);
  // With 3 groups t_{0.975,1} = 12.7: nothing is an outlier.
  EXPECT_EQ(a.outlier_count, 0);
  EXPECT_NEAR(a.groups[2].pi_low, 0.7640545515611139, kTol);
  EXPECT_NEAR(a.groups[2].pi_high, 8.928945448438885, kTol);
}

TEST(OneWayAnovaTest, UnbalancedChickwtsMatchesRsAnovaTable) {
  const OneWayAnova a = OneWayRandomEffects(kChickwts);
  ASSERT_TRUE(a.has_anova);
  EXPECT_EQ(a.n_total, 71);
  EXPECT_EQ(a.df_between, 5);
  EXPECT_EQ(a.df_within, 65);
  // [R] to the printed digits.
  EXPECT_NEAR(a.ss_between, 231129, 0.5);
  EXPECT_NEAR(a.ss_within, 195556, 0.5);
  EXPECT_NEAR(a.ms_between, 46226, 0.5);
  EXPECT_NEAR(a.ms_within, 3009, 0.5);
  EXPECT_NEAR(a.f, 15.365, 5e-4);
  EXPECT_NEAR(a.p_value, 5.936e-10, 5e-14);
  // [ref] to 1e-6 (relative for the sums of squares and the p-value).
  EXPECT_NEAR(a.grand_mean, 261.3098591549296, kTol);
  EXPECT_NEAR(a.ss_between / 231129.16210292056, 1, kTol * 1e-3);
  EXPECT_NEAR(a.ss_within / 195556.020995671, 1, kTol * 1e-3);
  EXPECT_NEAR(a.ms_between, 46225.83242058411, kTol);
  EXPECT_NEAR(a.ms_within, 3008.5541691641693, kTol);
  EXPECT_NEAR(a.f, 15.364799774712544, kTol);
  EXPECT_NEAR(a.p_value / 5.936419853471305e-10, 1, kTol);
  // n0 = (71 - 849 / 71) / 5, below the mean group size 71 / 6.
  EXPECT_NEAR(a.n0, 11.808450704225352, kTol);
  EXPECT_NEAR(a.var_between, 3659.860157264809, kTol);
  EXPECT_NEAR(a.var_within, 3008.5541691641693, kTol);
  EXPECT_NEAR(a.sd_between, 60.496778073421474, kTol);
  EXPECT_NEAR(a.sd_within, 54.850288688065895, kTol);
  EXPECT_NEAR(a.icc, 0.5488351470243319, kTol);
  EXPECT_NEAR(a.cv, 0.2496152116735461, kTol);
  EXPECT_NEAR(a.max_min_ratio, 2.0531627132750727, kTol);
  EXPECT_EQ(a.groups[1].n, 10);
  EXPECT_NEAR(a.groups[1].mean, 160.2, kTol);
  EXPECT_NEAR(a.groups[1].pi_low, 133.2561704159503, kTol);
  EXPECT_NEAR(a.groups[1].pi_high, 424.5788945191146, kTol);
  EXPECT_EQ(a.outlier_count, 0);
}

TEST(OneWayAnovaTest, ShroutFleissIcc1) {
  const OneWayAnova a = OneWayRandomEffects(kShroutFleiss);
  ASSERT_TRUE(a.has_icc);
  // [S&F] to the printed digits.
  EXPECT_NEAR(a.ms_between, 11.24, 5e-3);
  EXPECT_NEAR(a.ms_within, 6.26, 5e-3);
  EXPECT_NEAR(a.icc, 0.17, 5e-3);
  // [ref]; also (BMS - WMS) / (BMS + 3 WMS), S&F's formula for 4 judges.
  EXPECT_NEAR(a.icc, 0.1657417684054754, kTol);
  EXPECT_NEAR(a.icc,
              (a.ms_between - a.ms_within) /
                  (a.ms_between + 3 * a.ms_within),
              1e-12);
  EXPECT_NEAR(a.f, 1.7946784922394678, kTol);
  EXPECT_NEAR(a.p_value, 0.16476880834463992, kTol);
  EXPECT_NEAR(a.max_min_ratio, 2.5, kTol);
}

TEST(OneWayAnovaTest, DeviceFifteenPercentSlowerIsTheOnlyOutlier) {
  // [ref] "devices": four boards, unbalanced, the last ~15% slower.
  const OneWayAnova a = OneWayRandomEffects({{100.2, 99.8, 100.5, 100.1},
                                             {101.0, 100.4, 100.9},
                                             {99.5, 99.9, 100.3, 99.7, 100.0},
                                             {115.3, 114.8}});
  EXPECT_NEAR(a.n0, 3.380952380952381, kTol);
  EXPECT_NEAR(a.sd_between, 6.118130563844166, kTol);
  EXPECT_NEAR(a.sd_within, 0.3081666215972565, kTol);
  EXPECT_NEAR(a.icc, 0.9974693430943676, kTol);
  EXPECT_NEAR(a.p_value, 2.605307709855504e-13, 1e-18);
  EXPECT_EQ(a.outlier_count, 1);
  EXPECT_FALSE(a.groups[0].outlier);
  EXPECT_FALSE(a.groups[1].outlier);
  EXPECT_FALSE(a.groups[2].outlier);
  EXPECT_TRUE(a.groups[3].outlier);
  EXPECT_NEAR(a.groups[3].pi_low, 98.00753444782562, kTol);
  EXPECT_NEAR(a.groups[3].pi_high, 102.52357666328548, kTol);
  // The others' means 100.15, 100.7667, 99.88 average 100.265556; the
  // slow board's 115.05 is 14.75% above.
  EXPECT_NEAR(a.groups[3].others_mean, 100.26555555555555, kTol);
  EXPECT_NEAR(a.groups[3].deviation_percent,
              100 * (115.05 / 100.26555555555555 - 1), kTol);
}

TEST(OneWayAnovaTest, GroupOfOneAddsToTheBetweenPartOnly) {
  // [hand] {1,2,3}, {5}, {4,6}: means 2, 5, 5, grand mean 3.5.
  // SS_b = 3 (1.5^2) + 1 (1.5^2) + 2 (1.5^2) = 13.5, SS_w = 2 + 0 + 2 = 4,
  // MS_b = 6.75, MS_w = 4/3, F = 5.0625 (scipy f_oneway: 5.0625, p
  // 0.1092780442820017). n0 = (6 - 14/6) / 2 = 11/6, var_b = (6.75 - 4/3)
  // / (11/6) = 65/22, ICC = (65/22) / (65/22 + 4/3) = 195/283.
  const OneWayAnova a = OneWayRandomEffects({{1, 2, 3}, {5}, {4, 6}});
  ASSERT_TRUE(a.has_anova);
  EXPECT_EQ(a.groups[1].n, 1);
  EXPECT_EQ(a.groups[1].sd, 0);
  EXPECT_NEAR(a.ss_between, 13.5, 1e-12);
  EXPECT_NEAR(a.ss_within, 4, 1e-12);
  EXPECT_NEAR(a.f, 5.0625, 1e-12);
  EXPECT_NEAR(a.p_value, 0.1092780442820017, kTol);
  EXPECT_NEAR(a.n0, 11.0 / 6, 1e-12);
  EXPECT_NEAR(a.var_between, 65.0 / 22, 1e-12);
  EXPECT_NEAR(a.icc, 195.0 / 283, 1e-12);
}

TEST(OneWayAnovaTest, NonFiniteValuesAreDroppedAndEmptyGroupsNotCounted) {
  const OneWayAnova clean = OneWayRandomEffects({{1, 2, 3}, {5}, {4, 6}});
  const OneWayAnova a = OneWayRandomEffects(
      {{1, kNaN, 2, 3}, {kInf, 5}, {}, {4, -kInf, 6}, {kNaN}});
  EXPECT_EQ(a.groups.size(), 5u);
  EXPECT_EQ(a.groups[2].n, 0);
  EXPECT_EQ(a.groups[4].n, 0);
  EXPECT_FALSE(a.groups[4].checked);
  EXPECT_EQ(a.k, 3);
  EXPECT_EQ(a.n_total, 6);
  EXPECT_DOUBLE_EQ(a.f, clean.f);
  EXPECT_DOUBLE_EQ(a.icc, clean.icc);
}

TEST(OneWayAnovaTest, FewerThanTwoGroupsGiveNoComparison) {
  const OneWayAnova a = OneWayRandomEffects({{10, 11, 12}});
  EXPECT_EQ(a.k, 1);
  EXPECT_FALSE(a.has_anova);
  EXPECT_FALSE(a.has_icc);
  EXPECT_FALSE(a.has_cv);
  EXPECT_FALSE(a.groups[0].checked);
  EXPECT_NEAR(a.groups[0].mean, 11, 1e-12);
  EXPECT_NEAR(a.groups[0].sd, 1, 1e-12);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_THAT(a.notes[0], HasSubstr("at least 2"));
  EXPECT_FALSE(OneWayRandomEffects({}).has_anova);
}

TEST(OneWayAnovaTest, OneRunPerDeviceKeepsTheSpreadOfMeansOnly) {
  const OneWayAnova a = OneWayRandomEffects({{10}, {12}, {11}, {30}});
  EXPECT_FALSE(a.has_anova);
  EXPECT_FALSE(a.has_components);
  EXPECT_FALSE(a.has_icc);
  ASSERT_TRUE(a.has_cv);
  // Means 10, 12, 11, 30: mean 15.75, squared deviations 33.0625 +
  // 14.0625 + 22.5625 + 203.0625 = 272.75, sample SD sqrt(272.75 / 3).
  EXPECT_NEAR(a.cv, std::sqrt(272.75 / 3) / 15.75, 1e-12);
  EXPECT_NEAR(a.max_min_ratio, 3, 1e-12);
  EXPECT_TRUE(a.groups[3].outlier);
  EXPECT_THAT(a.notes.back(), HasSubstr("no within-device variance"));
}

TEST(OneWayAnovaTest, ZeroWithinVarianceGivesInfiniteFAndIccOne) {
  // Identical values per device (0.1 is not exact in binary: the means
  // still come out exact).
  const OneWayAnova a =
      OneWayRandomEffects({{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.3, 0.3, 0.3}});
  ASSERT_TRUE(a.has_anova);
  EXPECT_EQ(a.ss_within, 0);
  EXPECT_TRUE(std::isinf(a.f));
  EXPECT_EQ(a.p_value, 0);
  EXPECT_EQ(a.sd_within, 0);
  EXPECT_NEAR(a.sd_between, 0.1, 1e-12);
  EXPECT_EQ(a.icc, 1);
  // A test against zero spread means nothing: none, and a note says why.
  EXPECT_FALSE(a.has_f_test);
  EXPECT_THAT(a.notes.back(), HasSubstr("the F test is meaningless"));
}

// Deterministic runs (twins) whose values differ only by rounding (here
// 1e-15 of the value; `variability` printed within-SD 8.094e-16 and
// F-test p 2.4e-168): the spread is taken as zero, no F test.
TEST(OneWayAnovaTest, RoundingNoiseWithinDevicesIsNoSpread) {
  const double x = 41.07, y = 41.5, z = 40.9;
  const OneWayAnova a = OneWayRandomEffects(
      {{x, x * (1 + 1e-15), x * (1 - 1e-15)},
       {y, y * (1 + 2e-15), y},
       {z, z, z * (1 + 1e-15)}});
  ASSERT_TRUE(a.has_anova);
  EXPECT_FALSE(a.has_f_test);
  EXPECT_EQ(a.sd_within, 0);
  EXPECT_THAT(a.notes.back(), HasSubstr("the F test is meaningless"));
  // A real spread, however small against the mean, is tested.
  const OneWayAnova b = OneWayRandomEffects(
      {{x, x * (1 + 1e-6), x * (1 - 1e-6)}, {y, y * (1 + 2e-6), y}});
  EXPECT_TRUE(b.has_f_test);
  EXPECT_LT(b.p_value, 1e-6);
}

TEST(OneWayAnovaTest, AllValuesEqualIsNotSignificantAndHasNoIcc) {
  const OneWayAnova a = OneWayRandomEffects({{7, 7}, {7, 7, 7}, {7}});
  ASSERT_TRUE(a.has_anova);
  EXPECT_EQ(a.f, 0);
  EXPECT_EQ(a.p_value, 1);
  EXPECT_FALSE(a.has_f_test);
  EXPECT_FALSE(a.has_icc);
  EXPECT_EQ(a.cv, 0);
  EXPECT_EQ(a.max_min_ratio, 1);
  EXPECT_EQ(a.outlier_count, 0);
}

TEST(OneWayAnovaTest, BetweenComponentIsClampedAtZero) {
  // Means equal (2 and 2), spread within: MS_b = 0 < MS_w.
  const OneWayAnova a = OneWayRandomEffects({{1, 3}, {0, 4}});
  ASSERT_TRUE(a.has_components);
  EXPECT_EQ(a.var_between, 0);
  EXPECT_EQ(a.sd_between, 0);
  EXPECT_EQ(a.icc, 0);
  EXPECT_NEAR(a.var_within, (2 + 8) / 2.0, 1e-12);
  EXPECT_EQ(a.p_value, 1);
}

TEST(OneWayAnovaTest, NonPositiveMeansHaveNoRatioAndZeroMeanNoCv) {
  const OneWayAnova a = OneWayRandomEffects({{-1, -1.2}, {1, 1.2}});
  EXPECT_FALSE(a.has_max_min);
  EXPECT_FALSE(a.has_cv);
  EXPECT_TRUE(a.has_anova);
}

TEST(OneWayAnovaTest, HugeValuesDoNotOverflow) {
  const double big = 1e300;
  const OneWayAnova a = OneWayRandomEffects(
      {{1.0 * big, 1.1 * big}, {1.2 * big, 1.3 * big}, {1.0 * big, 1.05 * big}});
  ASSERT_TRUE(a.has_icc);
  const OneWayAnova small = OneWayRandomEffects(
      {{1.0, 1.1}, {1.2, 1.3}, {1.0, 1.05}});
  EXPECT_NEAR(a.f, small.f, 1e-9 * small.f);
  EXPECT_NEAR(a.icc, small.icc, 1e-12);
  EXPECT_NEAR(a.sd_within / big, small.sd_within, 1e-12);
}

}  // namespace
}  // namespace powersweep::stats
