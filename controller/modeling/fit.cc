#include "controller/modeling/fit.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "controller/modeling/least_squares.h"

namespace powersweep::modeling {
namespace {

absl::Status CheckPositive(double v, size_t i, const CustomMode& mode,
                           const char* what) {
  if (std::isfinite(v) && v > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("observation ", i, " (", ModeToString(mode), "): ", what,
                   " must be positive and finite, got ", v));
}

// Shared by time and energy fits: the fitted quantity and the time
// estimates, one per observation.
struct FitInput {
  const ModelForm* form = nullptr;
  std::vector<CustomMode> modes;
  std::vector<double> y;
  std::vector<TimeEstimate> estimates;  // empty for time forms
};

absl::StatusOr<FittedModel> Fit(const FitInput& in) {
  const ModelForm& form = *in.form;
  const std::vector<CustomMode> distinct = DistinctModes(in.modes);
  const ActiveKnobs knobs = KnobsThatVary(in.modes);
  if (absl::Status s = form.Applicable(knobs); !s.ok()) return s;
  const std::vector<std::string> names = form.ParameterNames(knobs);
  const int p = static_cast<int>(names.size());
  if (static_cast<int>(distinct.size()) < p) {
    return absl::InvalidArgumentError(absl::StrCat(
        "need at least ", p, " distinct modes for form ", form.name(), " (",
        p, " coefficients), got ", distinct.size()));
  }
  std::vector<ScaledMode> xs;
  for (size_t i = 0; i < in.modes.size(); ++i) {
    if (absl::Status s = CheckModeForKnobs(in.modes[i], knobs); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("observation ", i, ": ", s.message()));
    }
    xs.push_back(Scale(in.modes[i]));
  }

  absl::StatusOr<LeastSquaresResult> ls;
  if (form.linear()) {
    std::vector<std::vector<double>> rows(xs.size(), std::vector<double>(p));
    for (size_t i = 0; i < xs.size(); ++i) {
      const TimeEstimate te =
          in.estimates.empty() ? TimeEstimate{} : in.estimates[i];
      form.Features(knobs, xs[i], te, rows[i].data());
    }
    ls = RelativeLinearLeastSquares(rows, in.y,
                                    absl::StrCat("form ", form.name()));
  } else {
    ls = RelativeNonlinearLeastSquares(form, knobs, xs, in.estimates, in.y);
  }
  if (!ls.ok()) return ls.status();

  FittedModel m;
  m.target = form.target();
  m.form = form.name();
  m.knobs = knobs;
  m.parameter_names = names;
  m.coefficients = ls->params;
  m.covariance = ls->covariance;
  m.training_modes = distinct;
  m.observations = static_cast<int>(in.y.size());
  m.residual_dof = m.observations - p;
  double sq = 0;
  for (size_t i = 0; i < in.y.size(); ++i) {
    const double r = (ls->fitted[i] - in.y[i]) / in.y[i];
    sq += r * r;
  }
  m.residual_std = m.residual_dof > 0 ? std::sqrt(sq / m.residual_dof) : 0;
  return m;
}

}  // namespace

std::vector<CustomMode> DistinctModes(const std::vector<CustomMode>& modes) {
  std::vector<CustomMode> out;
  for (const CustomMode& m : modes) {
    bool seen = false;
    for (const CustomMode& o : out) seen = seen || o == m;
    if (!seen) out.push_back(m);
  }
  return out;
}

absl::StatusOr<FittedModel> FitTimeModel(const std::string& form,
                                         const std::vector<Observation>& obs) {
  if (absl::Status s = CheckForm(form, Target::kTime); !s.ok()) return s;
  if (obs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no observations to fit form ", form, " to"));
  }
  FitInput in;
  in.form = FindForm(form);
  for (size_t i = 0; i < obs.size(); ++i) {
    if (absl::Status s = CheckPositive(obs[i].value, i, obs[i].mode, "time");
        !s.ok()) {
      return s;
    }
    in.modes.push_back(obs[i].mode);
    in.y.push_back(obs[i].value);
  }
  absl::StatusOr<FittedModel> m = Fit(in);
  if (!m.ok()) return m;
  const ModelForm& f = *in.form;
  double ape = 0;
  for (size_t i = 0; i < obs.size(); ++i) {
    const double pred = f.Evaluate(m->knobs, Scale(obs[i].mode),
                                   TimeEstimate{}, m->coefficients.data());
    ape += std::abs(pred - obs[i].value) / obs[i].value;
  }
  m->in_sample_mape_pct = 100 * ape / obs.size();
  return m;
}

absl::StatusOr<FittedModel> FitEnergyModel(
    const std::string& form, const std::vector<EnergyObservation>& obs,
    const FittedModel& time_model) {
  if (absl::Status s = CheckForm(form, Target::kEnergy); !s.ok()) return s;
  if (absl::Status s = CheckFittedModel(time_model, Target::kTime); !s.ok()) {
    return s;
  }
  if (obs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no observations to fit form ", form, " to"));
  }
  FitInput in;
  in.form = FindForm(form);
  const bool power = in.form->models_power();
  for (size_t i = 0; i < obs.size(); ++i) {
    const EnergyObservation& o = obs[i];
    if (absl::Status s = CheckPositive(o.energy_j, i, o.mode, "energy_j");
        !s.ok()) {
      return s;
    }
    if (power) {
      if (absl::Status s = CheckPositive(o.time_s, i, o.mode, "time_s");
          !s.ok()) {
        return s;
      }
    }
    absl::StatusOr<TimeEstimate> te = EstimateTime(time_model, o.mode);
    if (!te.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "observation ", i, ": the time model cannot predict it: ",
          te.status().message()));
    }
    in.modes.push_back(o.mode);
    in.y.push_back(power ? o.energy_j / o.time_s : o.energy_j);
    in.estimates.push_back(*te);
  }
  absl::StatusOr<FittedModel> m = Fit(in);
  if (!m.ok()) return m;
  m->time_form = time_model.form;
  double ape = 0;
  for (size_t i = 0; i < obs.size(); ++i) {
    const double v = in.form->Evaluate(m->knobs, Scale(obs[i].mode),
                                       in.estimates[i], m->coefficients.data());
    const double e = power ? v * in.estimates[i].time_s : v;
    ape += std::abs(e - obs[i].energy_j) / obs[i].energy_j;
  }
  m->in_sample_mape_pct = 100 * ape / obs.size();
  return m;
}

}  // namespace powersweep::modeling
