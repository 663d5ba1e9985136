#include "controller/modeling/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
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
  const ReferencePrior* prior = nullptr;
};

// The prior of a transfer fit (fit.h ReferencePrior) for observations
// (xs, y); sets *scale to the factor applied to the reference.
absl::StatusOr<LeastSquaresPrior> MakePrior(const FitInput& in,
                                            const ActiveKnobs& knobs,
                                            const std::vector<ScaledMode>& xs,
                                            double* scale) {
  const ModelForm& form = *in.form;
  const FittedModel& ref = *in.prior->reference;
  const int p = static_cast<int>(form.ParameterNames(knobs).size());
  if (static_cast<int>(ref.coefficients.size()) != p) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the reference model has ", ref.coefficients.size(),
        " coefficients, form ", form.name(), " needs ", p));
  }
  if (!(in.prior->weight > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the prior weight must be positive, got ", in.prior->weight));
  }
  const size_t n = in.y.size();
  auto estimate = [&](size_t i) {
    return in.estimates.empty() ? TimeEstimate{} : in.estimates[i];
  };
  double log_ratio = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r =
        form.Evaluate(knobs, xs[i], estimate(i), ref.coefficients.data());
    if (!(std::isfinite(r) && r > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the reference model's value at observation ", i, " (",
          ModeToString(in.modes[i]), ") is ", r, ", not positive"));
    }
    log_ratio += std::log(in.y[i] / r);
  }
  *scale = std::exp(log_ratio / n);
  std::vector<double> natural(p);
  for (int k = 0; k < p; ++k) {
    natural[k] =
        ref.coefficients[k] * (form.ScalesWithValue(knobs, k) ? *scale : 1);
  }
  LeastSquaresPrior out;
  out.weight = in.prior->weight;
  out.mean.assign(p, 0);
  out.scale.assign(p, 1);
  if (form.linear()) {
    out.mean = natural;
    double y_mean = 0;
    std::vector<double> mean_abs(p, 0), row(p);
    for (size_t i = 0; i < n; ++i) {
      y_mean += in.y[i] / n;
      form.Features(knobs, xs[i], estimate(i), row.data());
      for (int k = 0; k < p; ++k) mean_abs[k] += std::abs(row[k]) / n;
    }
    for (int k = 0; k < p; ++k) {
      out.scale[k] = mean_abs[k] > 0
                         ? y_mean / mean_abs[k]
                         : std::numeric_limits<double>::infinity();
    }
  } else {
    form.ToInternal(natural.data(), out.mean.data(), p);
    double top = -std::numeric_limits<double>::infinity();
    for (int k = 0; k < p; ++k) {
      if (form.ScalesWithValue(knobs, k)) top = std::max(top, out.mean[k]);
    }
    for (int k = 0; k < p; ++k) {
      if (form.ScalesWithValue(knobs, k)) {
        out.mean[k] = std::max(out.mean[k], top - std::log(100.0));
      }
    }
  }
  return out;
}

absl::StatusOr<FittedModel> Fit(const FitInput& in) {
  const ModelForm& form = *in.form;
  const std::vector<CustomMode> distinct = DistinctModes(in.modes);
  const ActiveKnobs knobs = in.prior != nullptr
                                ? in.prior->reference->knobs
                                : KnobsThatVary(in.modes);
  if (absl::Status s = form.Applicable(knobs); !s.ok()) return s;
  const std::vector<std::string> names = form.ParameterNames(knobs);
  const int p = static_cast<int>(names.size());
  if (in.prior == nullptr && static_cast<int>(distinct.size()) < p) {
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

  LeastSquaresPrior prior;
  double reference_scale = 0;
  if (in.prior != nullptr) {
    PS_ASSIGN_OR_RETURN(prior, MakePrior(in, knobs, xs, &reference_scale));
  }
  const LeastSquaresPrior* prior_ptr = in.prior != nullptr ? &prior : nullptr;
  absl::StatusOr<LeastSquaresResult> ls;
  if (form.linear()) {
    std::vector<std::vector<double>> rows(xs.size(), std::vector<double>(p));
    for (size_t i = 0; i < xs.size(); ++i) {
      const TimeEstimate te =
          in.estimates.empty() ? TimeEstimate{} : in.estimates[i];
      form.Features(knobs, xs[i], te, rows[i].data());
    }
    ls = RelativeLinearLeastSquares(
        rows, in.y, absl::StrCat("form ", form.name()), prior_ptr);
  } else {
    ls = RelativeNonlinearLeastSquares(form, knobs, xs, in.estimates, in.y,
                                       prior_ptr);
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
  m.residual_dof = in.prior != nullptr ? std::max(m.observations - 1, 1)
                                       : m.observations - p;
  if (in.prior != nullptr) {
    m.prior_weight = in.prior->weight;
    m.reference_scale = reference_scale;
  }
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

namespace {

absl::StatusOr<FittedModel> FitTime(const std::string& form,
                                    const std::vector<Observation>& obs,
                                    const ReferencePrior* prior) {
  if (absl::Status s = CheckForm(form, Target::kTime); !s.ok()) return s;
  if (obs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("no observations to fit form ", form, " to"));
  }
  FitInput in;
  in.form = FindForm(form);
  in.prior = prior;
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

absl::StatusOr<FittedModel> FitEnergy(
    const std::string& form, const std::vector<EnergyObservation>& obs,
    const FittedModel& time_model, const ReferencePrior* prior) {
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
  in.prior = prior;
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

absl::Status CheckReference(const ReferencePrior& prior, Target target) {
  if (prior.reference == nullptr) {
    return absl::InvalidArgumentError("no reference model for the prior");
  }
  return CheckFittedModel(*prior.reference, target);
}

}  // namespace

absl::StatusOr<FittedModel> FitTimeModel(const std::string& form,
                                         const std::vector<Observation>& obs) {
  return FitTime(form, obs, nullptr);
}

absl::StatusOr<FittedModel> FitTimeModel(const std::vector<Observation>& obs,
                                         const ReferencePrior& prior) {
  PS_RETURN_IF_ERROR(CheckReference(prior, Target::kTime));
  return FitTime(prior.reference->form, obs, &prior);
}

absl::StatusOr<FittedModel> FitEnergyModel(
    const std::string& form, const std::vector<EnergyObservation>& obs,
    const FittedModel& time_model) {
  return FitEnergy(form, obs, time_model, nullptr);
}

absl::StatusOr<FittedModel> FitEnergyModel(
    const std::vector<EnergyObservation>& obs, const FittedModel& time_model,
    const ReferencePrior& prior) {
  PS_RETURN_IF_ERROR(CheckReference(prior, Target::kEnergy));
  if (prior.reference->time_form != time_model.form) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the reference energy model was fitted with time form ",
        prior.reference->time_form, ", the time model is ", time_model.form));
  }
  return FitEnergy(prior.reference->form, obs, time_model, &prior);
}

}  // namespace powersweep::modeling
