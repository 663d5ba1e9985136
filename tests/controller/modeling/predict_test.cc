#include "controller/modeling/predict.h"

#include <cmath>
#include <vector>

#include "controller/modeling/fit.h"
#include "controller/modeling/student_t.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::HasSubstr;

TEST(StudentTTest, QuantilesMatchTables) {
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.90, 1), 6.3138, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.90, 2), 2.9200, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.90, 10), 1.8125, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.95, 5), 2.5706, 1e-4);
  EXPECT_NEAR(StudentTTwoSidedQuantile(0.99, 30), 2.7500, 1e-4);
}

const ModeSpace& Xavier() {
  static const ModeSpace* space =
      new ModeSpace(*FindBuiltInDeviceClass("xavier-agx"));
  return *space;
}

// Time 20/c + 30/g + 5/m + 2 s at 12 Xavier AGX modes, with +-3%
// deterministic wiggles; energy = (5 + 3 g + 0.5 c) W x time.
struct Data {
  std::vector<Observation> time;
  std::vector<EnergyObservation> energy;
};

Data Make(int n, bool wiggle) {
  Data d;
  for (int i = 0; i < n; ++i) {
    const CustomMode m = *Xavier().At((i * 2459 + 101) % Xavier().Size());
    const ScaledMode x = Scale(m);
    const double w = wiggle ? 1 + 0.03 * std::sin(7.0 * i) : 1;
    const double t = (20 / x.cpu_ghz + 30 / x.gpu_ghz + 5 / x.mem_ghz + 2) * w;
    d.time.push_back({m, t});
    d.energy.push_back({m, (5 + 3 * x.gpu_ghz + 0.5 * x.cpu_ghz) * t, t});
  }
  return d;
}

TEST(PredictorTest, IntervalsFromResiduals) {
  const Data d = Make(12, true);
  const FittedModel time = *FitTimeModel("reciprocal", d.time);
  ASSERT_GT(time.residual_dof, 0);
  absl::StatusOr<Predictor> p90 = Predictor::Create(time);
  absl::StatusOr<Predictor> p99 = Predictor::Create(time, std::nullopt, 0.99);
  ASSERT_TRUE(p90.ok() && p99.ok());
  const CustomMode mid{4, 1190400, 624750000, 1331200000};
  absl::StatusOr<ModePrediction> a = p90->Predict(mid);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->has_interval);
  EXPECT_FALSE(a->has_energy);
  EXPECT_LT(a->time_lo_s, a->time_s);
  EXPECT_GT(a->time_hi_s, a->time_s);
  const ModePrediction b = *p99->Predict(mid);
  EXPECT_DOUBLE_EQ(b.time_s, a->time_s);
  EXPECT_GT(b.time_hi_s - b.time_lo_s, a->time_hi_s - a->time_lo_s);
  // The truth (without the wiggle) is inside the 99% interval.
  const ScaledMode x = Scale(mid);
  const double truth = 20 / x.cpu_ghz + 30 / x.gpu_ghz + 5 / x.mem_ghz + 2;
  EXPECT_GT(truth, b.time_lo_s);
  EXPECT_LT(truth, b.time_hi_s);
}

TEST(PredictorTest, NoIntervalWithoutResidualDegreesOfFreedom) {
  const Data d = Make(5, true);  // 5 modes, 5 coefficients
  const FittedModel time = *FitTimeModel("reciprocal", d.time);
  EXPECT_EQ(time.residual_dof, 0);
  const ModePrediction p = *Predictor::Create(time)->Predict(d.time[0].mode);
  EXPECT_FALSE(p.has_interval);
  EXPECT_TRUE(std::isnan(p.time_lo_s));
  EXPECT_NEAR(p.time_s, d.time[0].value, 1e-9 * d.time[0].value);

  // A model read back without its covariance predicts, without interval.
  FittedModel bare = *FitTimeModel("reciprocal", Make(12, true).time);
  bare.covariance.clear();
  const ModePrediction q = *Predictor::Create(bare)->Predict(d.time[0].mode);
  EXPECT_FALSE(q.has_interval);
  EXPECT_GT(q.time_s, 0);
}

TEST(PredictorTest, EnergyAndPower) {
  const Data d = Make(12, false);
  const FittedModel time = *FitTimeModel("reciprocal", d.time);
  const FittedModel energy = *FitEnergyModel("power_x_time", d.energy, time);
  absl::StatusOr<Predictor> p = Predictor::Create(time, energy);
  ASSERT_TRUE(p.ok()) << p.status();
  const CustomMode m{2, 2265600, 1377000000, 2133000000};
  const ModePrediction r = *p->Predict(m);
  const ScaledMode x = Scale(m);
  const double t = 20 / x.cpu_ghz + 30 / x.gpu_ghz + 5 / x.mem_ghz + 2;
  const double w = 5 + 3 * x.gpu_ghz + 0.5 * x.cpu_ghz;
  EXPECT_TRUE(r.has_energy);
  EXPECT_NEAR(r.time_s, t, 1e-9 * t);
  EXPECT_NEAR(r.power_w, w, 1e-9 * w);
  EXPECT_NEAR(r.energy_j, w * t, 1e-9 * w * t);
}

TEST(PredictorTest, WholeSpaceMatchesSingleModes) {
  const Data d = Make(12, true);
  const FittedModel time = *FitTimeModel("overlap", d.time);
  const FittedModel energy =
      *FitEnergyModel("power_util_x_time", d.energy, time);
  const Predictor p = *Predictor::Create(time, energy);
  absl::StatusOr<std::vector<ModePrediction>> all = p.PredictSpace(Xavier());
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 29232u);
  for (int64_t i : {0, 777, 29231}) {
    const ModePrediction one = *p.Predict(*Xavier().At(i));
    EXPECT_EQ((*all)[i].mode, *Xavier().At(i));
    EXPECT_DOUBLE_EQ((*all)[i].time_s, one.time_s);
    EXPECT_DOUBLE_EQ((*all)[i].energy_j, one.energy_j);
    EXPECT_DOUBLE_EQ((*all)[i].time_hi_s, one.time_hi_s);
  }
  const std::vector<ModePoint> points = ToPoints(*all);
  EXPECT_DOUBLE_EQ(points[5].power_w, (*all)[5].power_w);
  // Conservative figures for budget queries: the intervals' upper ends.
  ASSERT_TRUE((*all)[5].has_interval);
  const std::vector<ModePoint> upper = ToPoints(*all, Bound::kUpper);
  EXPECT_DOUBLE_EQ(upper[5].time_s, (*all)[5].time_hi_s);
  EXPECT_DOUBLE_EQ(upper[5].energy_j, (*all)[5].energy_hi_j);
  EXPECT_DOUBLE_EQ(upper[5].power_w, (*all)[5].power_hi_w);
  EXPECT_GT(upper[5].power_w, points[5].power_w);
  EXPECT_LT((*all)[5].power_lo_w, points[5].power_w);
}

TEST(PredictorTest, KnobsTheModelDidNotSeeVaryAreIgnored) {
  const Data d = Make(12, true);  // cores vary too in these modes
  std::vector<Observation> fixed_cores = d.time;
  for (Observation& o : fixed_cores) o.mode.cpu_cores = 8;
  const FittedModel time = *FitTimeModel("reciprocal", fixed_cores);
  EXPECT_FALSE(time.knobs.cores);
  const Predictor p = *Predictor::Create(time);
  CustomMode m{8, 1190400, 624750000, 1331200000};
  const double at8 = p.Predict(m)->time_s;
  m.cpu_cores = 1;
  EXPECT_DOUBLE_EQ(p.Predict(m)->time_s, at8);
}

TEST(PredictorTest, Errors) {
  const Data d = Make(12, true);
  const FittedModel time = *FitTimeModel("reciprocal", d.time);
  const Predictor p = *Predictor::Create(time);
  absl::StatusOr<ModePrediction> r = p.Predict(CustomMode{4, 1190400, 0, 1331200000});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("gpu_freq_hz is 0"));

  // A class whose modes lack the GPU clock the model varies.
  const ModeSpace host(*FindBuiltInDeviceClass("host"), 4);
  EXPECT_THAT(p.PredictSpace(host).status().message(),
              HasSubstr("cannot predict the modes of host"));

  const FittedModel energy = *FitEnergyModel("power_x_time", d.energy, time);
  const FittedModel other = *FitTimeModel("linear", d.time);
  EXPECT_THAT(Predictor::Create(other, energy).status().message(),
              HasSubstr("fitted with a time model of form reciprocal, not linear"));
  EXPECT_THAT(Predictor::Create(energy).status().message(),
              HasSubstr("expected a time model"));
  EXPECT_THAT(Predictor::Create(time, std::nullopt, 1.5).status().message(),
              HasSubstr("interval level must be in (0, 1), got 1.5"));
  FittedModel broken = time;
  broken.coefficients.pop_back();
  EXPECT_THAT(Predictor::Create(broken).status().message(),
              HasSubstr("has 5 parameters, got 4 coefficients"));
}

}  // namespace
}  // namespace powersweep::modeling
