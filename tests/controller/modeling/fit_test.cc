#include "controller/modeling/fit.h"

#include <cmath>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "controller/modeling/model_form.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

CustomMode Mode(int cores, double cpu_ghz, double gpu_ghz, double mem_ghz) {
  return CustomMode{cores, static_cast<int64_t>(std::llround(cpu_ghz * 1e6)),
                    static_cast<int64_t>(std::llround(gpu_ghz * 1e9)),
                    static_cast<int64_t>(std::llround(mem_ghz * 1e9))};
}

// 16 modes that vary every knob, not on a lattice (so every form's terms
// are separable).
std::vector<CustomMode> VariedModes() {
  std::vector<CustomMode> modes;
  for (int i = 0; i < 16; ++i) {
    modes.push_back(Mode(1 + (i * 5) % 8, 0.3 + 0.13 * ((i * 7) % 16),
                         0.2 + 0.09 * ((i * 3) % 13), 0.4 + 0.2 * ((i * 11) % 9)));
  }
  return modes;
}

// Noiseless observations of a linear form with coefficients `beta`.
std::vector<Observation> LinearData(const std::string& form,
                                    const std::vector<double>& beta) {
  const ModelForm& f = *FindForm(form);
  ActiveKnobs all{true, true, true, true};
  std::vector<Observation> obs;
  for (const CustomMode& m : VariedModes()) {
    std::vector<double> row(beta.size());
    f.Features(all, Scale(m), TimeEstimate{}, row.data());
    double y = 0;
    for (size_t k = 0; k < beta.size(); ++k) y += beta[k] * row[k];
    obs.push_back({m, y});
  }
  return obs;
}

void ExpectCoefficients(const FittedModel& m, const std::vector<double>& want,
                        double rel) {
  ASSERT_EQ(m.coefficients.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(m.coefficients[k], want[k], rel * std::abs(want[k]) + 1e-9)
        << m.form << " " << m.parameter_names[k];
  }
}

struct LinearCase {
  std::string form;
  std::vector<double> beta;
};

void PrintTo(const LinearCase& c, std::ostream* os) { *os << c.form; }

class LinearRecoveryTest : public ::testing::TestWithParam<LinearCase> {};

TEST_P(LinearRecoveryTest, RecoversCoefficientsFromNoiselessData) {
  const LinearCase& c = GetParam();
  absl::StatusOr<FittedModel> m = FitTimeModel(c.form, LinearData(c.form, c.beta));
  ASSERT_TRUE(m.ok()) << m.status();
  ExpectCoefficients(*m, c.beta, 1e-8);
  EXPECT_LT(m->in_sample_mape_pct, 1e-8);
  EXPECT_LT(m->residual_std, 1e-10);
  EXPECT_EQ(m->observations, 16);
  EXPECT_EQ(m->residual_dof, 16 - static_cast<int>(c.beta.size()));
  EXPECT_EQ(m->training_modes.size(), 16u);
}

INSTANTIATE_TEST_SUITE_P(
    TimeForms, LinearRecoveryTest,
    ::testing::Values(
        // c, n, g, m, const (the paper's form; values kept positive)
        LinearCase{"linear", {-20, -1.5, -30, -4, 150}},
        // 1/c, 1/n, 1/g, 1/m, const
        LinearCase{"reciprocal", {12, 3, 25, 6, 2}},
        LinearCase{"reciprocal_cross", {12, 3, 25, 6, 2, 9}},
        LinearCase{"combined", {-2, -0.5, -3, -1, 12, 3, 25, 6, 60}}),
    [](const auto& info) { return info.param.form; });

TEST(FitTest, ParameterNamesFollowTheForm) {
  absl::StatusOr<FittedModel> m =
      FitTimeModel("reciprocal", LinearData("reciprocal", {1, 2, 3, 4, 5}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->parameter_names,
              ElementsAre("1/cpu_ghz", "1/cores", "1/gpu_ghz", "1/mem_ghz",
                          "const"));
  EXPECT_EQ(m->form, "reciprocal");
  EXPECT_EQ(m->target, Target::kTime);
}

TEST(FitTest, OverlapRecoversItsParametersFromNoiselessData) {
  const std::vector<double> truth = {3, 40, 25, 6, 5};  // S, C, G, M, p
  const ModelForm& f = *FindForm("overlap");
  ActiveKnobs all{true, true, true, true};
  std::vector<Observation> obs;
  for (const CustomMode& m : VariedModes()) {
    obs.push_back({m, f.Evaluate(all, Scale(m), {}, truth.data())});
  }
  absl::StatusOr<FittedModel> m = FitTimeModel("overlap", obs);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->parameter_names,
              ElementsAre("serial_cpu_gcycles", "cpu_gcycles", "gpu_gcycles",
                          "mem_gcycles", "overlap_p"));
  ExpectCoefficients(*m, truth, 1e-5);
  EXPECT_LT(m->in_sample_mape_pct, 1e-5);
}

TEST(FitTest, OverlapWithOneClockDoesNotApply) {
  std::vector<Observation> obs;
  for (int i = 1; i <= 8; ++i) obs.push_back({Mode(i, 1.0, 0.5, 1.0), 10.0 / i});
  absl::StatusOr<FittedModel> m = FitTimeModel("overlap", obs);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(m.status().message(), HasSubstr("needs at least two of"));
}

TEST(FitTest, RefusesFewerDistinctModesThanCoefficients) {
  std::vector<Observation> obs = LinearData("reciprocal", {1, 2, 3, 4, 5});
  obs.resize(3);
  // Repetitions do not count as modes.
  obs.push_back(obs[0]);
  obs.push_back(obs[1]);
  absl::StatusOr<FittedModel> m = FitTimeModel("reciprocal", obs);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.status().message(),
            "need at least 5 distinct modes for form reciprocal "
            "(5 coefficients), got 3");
}

TEST(FitTest, DropsKnobsThatDoNotVary) {
  // A class with no GPU table (gpu 0 everywhere) and fixed memory clock.
  std::vector<Observation> obs;
  for (int i = 0; i < 6; ++i) {
    CustomMode m{1 + i % 4, 500000 + 300000 * i, 0, 0};
    const ScaledMode x = Scale(m);
    obs.push_back({m, 7 / x.cpu_ghz + 2 / x.cores + 1});
  }
  absl::StatusOr<FittedModel> m = FitTimeModel("reciprocal", obs);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(m->parameter_names, ElementsAre("1/cpu_ghz", "1/cores", "const"));
  ExpectCoefficients(*m, {7, 2, 1}, 1e-9);
  EXPECT_FALSE(m->knobs.gpu_freq);
  EXPECT_FALSE(m->knobs.mem_freq);
}

TEST(FitTest, RejectsBadValuesAndUnknownForms) {
  std::vector<Observation> obs = LinearData("reciprocal", {1, 2, 3, 4, 5});
  obs[2].value = -1;
  absl::StatusOr<FittedModel> m = FitTimeModel("reciprocal", obs);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(),
              HasSubstr("observation 2 (cores="));
  EXPECT_THAT(m.status().message(),
              HasSubstr("time must be positive and finite, got -1"));

  EXPECT_THAT(FitTimeModel("cubic", obs).status().message(),
              HasSubstr("unknown time model form \"cubic\" (known: linear, "
                        "reciprocal, reciprocal_cross, combined, overlap)"));
  EXPECT_THAT(FitTimeModel("paper", obs).status().message(),
              HasSubstr("unknown time model form \"paper\""));
  EXPECT_THAT(FitTimeModel("linear", {}).status().message(),
              HasSubstr("no observations"));
}

TEST(FitTest, RejectsAModeWithoutAVaryingKnob) {
  std::vector<Observation> obs = LinearData("reciprocal", {1, 2, 3, 4, 5});
  obs[4].mode.gpu_freq_hz = 0;
  absl::StatusOr<FittedModel> m = FitTimeModel("reciprocal", obs);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(),
              HasSubstr("observation 4: mode cores="));
  EXPECT_THAT(m.status().message(), HasSubstr("gpu_freq_hz is 0"));
}

TEST(FitTest, RejectsADesignThatCannotSeparateTheTerms) {
  // Cores and CPU clock move together: 1/cores and 1/cpu are collinear.
  std::vector<Observation> obs;
  for (int i = 1; i <= 6; ++i) {
    obs.push_back({CustomMode{i, 400000 * i, 500000000, 1000000000}, 5.0 / i});
  }
  absl::StatusOr<FittedModel> m = FitTimeModel("reciprocal", obs);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("form reciprocal: the design has rank 2 < 3"));
}

// A time model that is exactly known: reciprocal with these coefficients.
FittedModel KnownTimeModel(const std::vector<Observation>& obs) {
  return *FitTimeModel("reciprocal", obs);
}

TEST(FitEnergyTest, RecoversEachEnergyForm) {
  const std::vector<Observation> time_obs =
      LinearData("reciprocal", {12, 3, 25, 6, 2});
  const FittedModel time = KnownTimeModel(time_obs);
  ActiveKnobs all{true, true, true, true};
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"paper", {0.5, 0.2, 3, 0.4, 10, 4.5}},
      {"power_x_time", {4.5, 0.1, 0.8, 6, 0.3}},
      {"power_util_x_time", {4.5, 0.1, 0.4, 2.5, 8, 0.3}},
      {"power_util_mem_x_time", {4.5, 0.1, 0.4, 8, 0.3, 3}}};
  for (const auto& [form, beta] : cases) {
    const ModelForm& f = *FindForm(form);
    std::vector<EnergyObservation> obs;
    for (const Observation& o : time_obs) {
      absl::StatusOr<TimeEstimate> te = EstimateTime(time, o.mode);
      ASSERT_TRUE(te.ok()) << te.status();
      const double v = f.Evaluate(all, Scale(o.mode), *te, beta.data());
      const double energy = f.models_power() ? v * te->time_s : v;
      obs.push_back({o.mode, energy, te->time_s});
    }
    absl::StatusOr<FittedModel> m = FitEnergyModel(form, obs, time);
    ASSERT_TRUE(m.ok()) << form << ": " << m.status();
    EXPECT_EQ(m->target, Target::kEnergy);
    EXPECT_EQ(m->time_form, "reciprocal");
    ExpectCoefficients(*m, beta, 1e-7);
    EXPECT_LT(m->in_sample_mape_pct, 1e-7) << form;
    absl::StatusOr<double> e = EstimateEnergy(*m, obs[3].mode, *EstimateTime(time, obs[3].mode));
    ASSERT_TRUE(e.ok());
    EXPECT_NEAR(*e, obs[3].energy_j, 1e-7 * obs[3].energy_j);
  }
}

// A time model of `form` with these coefficients, every knob varying.
FittedModel TimeModelOfAllKnobs(const std::string& form,
                                std::vector<double> coefficients) {
  FittedModel m;
  m.form = form;
  m.knobs = ActiveKnobs{true, true, true, true};
  m.parameter_names = FindForm(form)->ParameterNames(m.knobs);
  m.covariance.assign(coefficients.size() * coefficients.size(), 0);
  m.coefficients = std::move(coefficients);
  return m;
}

// The busy shares the energy forms take from the time model: "overlap"
// reports the memory unit M/m over t, and the GPU share as the norm of the
// GPU and memory units over t; the reciprocal form its 1/m and 1/g + 1/m
// terms over t.
TEST(FitEnergyTest, TimeModelsReportTheGpuAndMemoryBusyShares) {
  const CustomMode mode{4, 1000000, 500000000, 2000000000};
  // c = 1 GHz, g = 0.5 GHz, m = 2 GHz.
  // overlap: S, C, G, M, p: serial 0.1 s, units 1 s (CPU), 1 s (GPU), 1 s
  // (memory), p = 1: the sum.
  absl::StatusOr<TimeEstimate> te =
      EstimateTime(TimeModelOfAllKnobs("overlap", {0.1, 1, 0.5, 2, 1}), mode);
  ASSERT_TRUE(te.ok()) << te.status();
  EXPECT_NEAR(te->time_s, 3.1, 1e-12);
  EXPECT_NEAR(te->gpu_busy_share, 2 / 3.1, 1e-12);
  EXPECT_NEAR(te->mem_busy_share, 1 / 3.1, 1e-12);

  // reciprocal: 1/c, 1/n, 1/g, 1/m, const.
  te = EstimateTime(TimeModelOfAllKnobs("reciprocal", {1, 4, 0.5, 2, 0.5}),
                    mode);
  ASSERT_TRUE(te.ok()) << te.status();
  EXPECT_NEAR(te->time_s, 1 + 1 + 1 + 1 + 0.5, 1e-12);
  EXPECT_NEAR(te->gpu_busy_share, 2 / 4.5, 1e-12);
  EXPECT_NEAR(te->mem_busy_share, 1 / 4.5, 1e-12);

  // Without a memory term the share is 1 (as the GPU share without a GPU
  // term): a form that cannot tell says the unit is busy all the time.
  te = EstimateTime(TimeModelOfAllKnobs("linear", {1, 0.1, 1, 0.1, 1}), mode);
  ASSERT_TRUE(te.ok()) << te.status();
  EXPECT_EQ(te->gpu_busy_share, 1);
  EXPECT_EQ(te->mem_busy_share, 1);
}

TEST(FitEnergyTest, PaperFormIsSingularWithTheLinearTimeModel) {
  // Predicted time is then itself linear in the paper's features.
  const std::vector<Observation> time_obs =
      LinearData("linear", {-20, -1.5, -30, -4, 150});
  const FittedModel time = *FitTimeModel("linear", time_obs);
  std::vector<EnergyObservation> obs;
  for (const Observation& o : time_obs) obs.push_back({o.mode, o.value * 9, o.value});
  absl::StatusOr<FittedModel> m = FitEnergyModel("paper", obs, time);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(m.status().message(), HasSubstr("rank 5 < 6"));
}

TEST(FitEnergyTest, PowerFormsNeedTheRunsTime) {
  const std::vector<Observation> time_obs =
      LinearData("reciprocal", {12, 3, 25, 6, 2});
  const FittedModel time = KnownTimeModel(time_obs);
  std::vector<EnergyObservation> obs;
  for (const Observation& o : time_obs) obs.push_back({o.mode, o.value * 9, o.value});
  obs[1].time_s = 0;
  absl::StatusOr<FittedModel> m = FitEnergyModel("power_x_time", obs, time);
  EXPECT_THAT(m.status().message(),
              HasSubstr("observation 1 (cores="));
  EXPECT_THAT(m.status().message(), HasSubstr("time_s must be positive"));
  // The paper form does not use it.
  EXPECT_TRUE(FitEnergyModel("paper", obs, time).ok());
  EXPECT_THAT(FitEnergyModel("reciprocal", obs, time).status().message(),
              HasSubstr("unknown energy model form \"reciprocal\" (known: "
                        "paper, power_x_time, power_util_x_time, "
                        "power_util_mem_x_time)"));
}

}  // namespace
}  // namespace powersweep::modeling
