#include "controller/modeling/cross_validation.h"

#include <cmath>
#include <string>
#include <vector>

#include "controller/modeling/fit.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::HasSubstr;

CustomMode Cpu(int64_t khz) { return CustomMode{4, khz, 900000000, 1600000000}; }

// Only the CPU clock varies: reciprocal is t = a / c + b (2 coefficients),
// so each fold interpolates its two remaining modes.
std::vector<Observation> ThreeModes() {
  return {{Cpu(1000000), 10}, {Cpu(2000000), 6}, {Cpu(4000000), 5}};
}

TEST(CrossValidationTest, HandCheckedLeaveOneModeOut) {
  absl::StatusOr<CrossValidation> cv = CrossValidateTime("reciprocal", ThreeModes());
  ASSERT_TRUE(cv.ok()) << cv.status();
  ASSERT_EQ(cv->held_out.size(), 3u);
  // Without c=1: through (1/2, 6), (1/4, 5): a=4, b=4 -> 8 at c=1: 20%.
  EXPECT_EQ(cv->held_out[0].mode, Cpu(1000000));
  EXPECT_NEAR(cv->held_out[0].predicted, 8, 1e-9);
  EXPECT_NEAR(cv->held_out[0].ape_pct, 20, 1e-9);
  // Without c=2: through (1, 10), (1/4, 5): a=20/3, b=10/3 -> 20/3: 11.1%.
  EXPECT_NEAR(cv->held_out[1].predicted, 20.0 / 3, 1e-9);
  EXPECT_NEAR(cv->held_out[1].ape_pct, 100.0 / 9, 1e-9);
  // Without c=4: through (1, 10), (1/2, 6): a=8, b=2 -> 4 at c=4: 20%.
  EXPECT_NEAR(cv->held_out[2].predicted, 4, 1e-9);
  EXPECT_NEAR(cv->held_out[2].ape_pct, 20, 1e-9);
  EXPECT_NEAR(cv->mape_pct, (40 + 100.0 / 9) / 3, 1e-9);
  EXPECT_NEAR(cv->median_ape_pct, 20, 1e-9);
  EXPECT_EQ(cv->held_out[0].observations, 1);
}

TEST(CrossValidationTest, RepetitionsAreHeldOutTogetherAndAveraged) {
  std::vector<Observation> obs = ThreeModes();
  obs.push_back({Cpu(1000000), 12});  // c=1 now averages 11
  absl::StatusOr<CrossValidation> cv = CrossValidateTime("reciprocal", obs);
  ASSERT_TRUE(cv.ok()) << cv.status();
  EXPECT_EQ(cv->held_out[0].observations, 2);
  EXPECT_NEAR(cv->held_out[0].observed, 11, 1e-12);
  EXPECT_NEAR(cv->held_out[0].predicted, 8, 1e-9);
}

// t = 2/c + 1 with a deterministic +-3% wobble at 12 CPU clocks.
std::vector<Observation> TwelveNoisyModes() {
  std::vector<Observation> obs;
  for (int i = 0; i < 12; ++i) {
    const double ghz = 0.5 + 0.25 * i;
    const double wobble = 1 + 0.03 * std::sin(3.7 * i);
    obs.push_back({Cpu(static_cast<int64_t>(ghz * 1e6)),
                   (2 / ghz + 1) * wobble});
  }
  return obs;
}

TEST(CrossValidationTest, HeldOutIntervalsAreCheckedAndCalibrated) {
  const std::vector<Observation> obs = TwelveNoisyModes();
  absl::StatusOr<CrossValidation> right = CrossValidateTime("reciprocal", obs);
  ASSERT_TRUE(right.ok()) << right.status();
  // Every fold had an interval; each held-out mode says whether it held.
  EXPECT_EQ(right->interval_held_out, 12);
  int covered = 0;
  for (const HeldOutMode& h : right->held_out) {
    ASSERT_TRUE(h.has_interval);
    EXPECT_LT(h.lo, h.predicted);
    EXPECT_GT(h.hi, h.predicted);
    EXPECT_EQ(h.covered, h.lo <= h.observed && h.observed <= h.hi);
    covered += h.covered;
  }
  EXPECT_EQ(right->interval_covered, covered);
  ASSERT_TRUE(right->interval_calibrated);
  // Scaled, the held-out errors' median ratio to the half-width is that of
  // calibrated normal errors (0.41): half of them within 0.41 half-widths.
  int inside = 0;
  for (const HeldOutMode& h : right->held_out) {
    inside += std::abs(h.observed - h.predicted) <=
              kCalibratedMedianRatio * right->interval_scale *
                  (h.hi - h.predicted) * (1 + 1e-9);
  }
  EXPECT_GE(inside, 6);
  EXPECT_LE(inside, 7);

  // The right form on mild noise: a scale near 1, not a blow-up.
  EXPECT_GT(right->interval_scale, 0.5);
  EXPECT_LT(right->interval_scale, 2.5);

  // The chosen model carries its cross-validation's scale.
  absl::StatusOr<ModelSelection> chosen =
      SelectTimeModel(obs, {"linear", "reciprocal"});
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(chosen->model.form, "reciprocal");
  EXPECT_DOUBLE_EQ(chosen->model.interval_scale, right->interval_scale);
}

TEST(CrossValidationTest, FewHeldOutModesLeaveIntervalsUnscaled) {
  absl::StatusOr<CrossValidation> cv =
      CrossValidateTime("reciprocal", ThreeModes());
  ASSERT_TRUE(cv.ok()) << cv.status();
  EXPECT_FALSE(cv->interval_calibrated);
  EXPECT_EQ(cv->interval_scale, 1);
}

TEST(CrossValidationTest, NeedsOneModeMoreThanCoefficients) {
  std::vector<Observation> obs = ThreeModes();
  obs.pop_back();
  absl::StatusOr<CrossValidation> cv = CrossValidateTime("reciprocal", obs);
  EXPECT_EQ(cv.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cv.status().message(),
            "leave-one-mode-out cross-validation of form reciprocal needs at "
            "least 3 distinct modes (2 coefficients + 1), got 2");
}

// t = 30 / c + 20 / g + 2 exactly, over a grid of CPU and GPU clocks.
std::vector<Observation> ReciprocalGrid() {
  std::vector<Observation> obs;
  for (int64_t khz : {500000, 1000000, 2000000}) {
    for (int64_t hz : {300000000, 600000000, 1200000000}) {
      const CustomMode m{4, khz, hz, 1600000000};
      obs.push_back({m, 30 / (khz * 1e-6) + 20 / (hz * 1e-9) + 2});
    }
  }
  return obs;
}

TEST(SelectionTest, ChoosesTheFormThatPredictsHeldOutModes) {
  absl::StatusOr<ModelSelection> s = SelectTimeModel(ReciprocalGrid());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->model.form, "reciprocal");
  EXPECT_LT(s->cv.mape_pct, 1e-8);
  ASSERT_EQ(s->candidates.size(), 5u);
  EXPECT_EQ(s->candidates[0].form, "linear");
  EXPECT_TRUE(s->candidates[0].cross_validated);
  EXPECT_GT(s->candidates[0].cv_mape_pct, 5);
  EXPECT_EQ(s->candidates[0].coefficients, 3);  // c, g, const
  // combined has 5 coefficients here (c, g, 1/c, 1/g, const): 9 modes do.
  EXPECT_TRUE(s->candidates[3].cross_validated);
  // overlap fits too (2 clocks), but is not exact on this sum.
  EXPECT_EQ(s->candidates[4].form, "overlap");
}

TEST(SelectionTest, ReportsWhyAFormWasLeftOut) {
  std::vector<Observation> obs = ReciprocalGrid();
  obs.resize(4);  // 4 modes: combined (5) and overlap (4) cannot be checked
  absl::StatusOr<ModelSelection> s = SelectTimeModel(obs);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->candidates[3].cross_validated);
  EXPECT_THAT(s->candidates[3].reason,
              HasSubstr("needs at least 6 distinct modes (5 coefficients + 1), "
                        "got 4"));
  EXPECT_FALSE(s->candidates[4].cross_validated);

  obs.resize(2);
  absl::StatusOr<ModelSelection> none = SelectTimeModel(obs);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(),
              HasSubstr("no model form could be cross-validated (linear: "));
}

TEST(SelectionTest, EnergyFormChosenWithTheTimeModelRefittedPerFold) {
  const std::vector<Observation> time_obs = ReciprocalGrid();
  const FittedModel time = *FitTimeModel("reciprocal", time_obs);
  // Power 5 + 0.5 c + 4 g W, energy = power x time.
  std::vector<EnergyObservation> obs;
  for (const Observation& o : time_obs) {
    const ScaledMode x = Scale(o.mode);
    obs.push_back({o.mode, (5 + 0.5 * x.cpu_ghz + 4 * x.gpu_ghz) * o.value,
                   o.value});
  }
  absl::StatusOr<ModelSelection> s = SelectEnergyModel(obs, time, time_obs);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->model.form, "power_x_time");
  EXPECT_LT(s->cv.mape_pct, 1e-8);
  // Every energy form is reported, chosen or not.
  EXPECT_EQ(s->candidates.size(), EnergyFormNames().size());
  EXPECT_EQ(s->candidates.size(), 4u);
}

}  // namespace
}  // namespace powersweep::modeling
