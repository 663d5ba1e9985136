#include "controller/modeling/fitted_model.h"

#include "absl/strings/str_cat.h"

namespace powersweep::modeling {

absl::Status CheckFittedModel(const FittedModel& model, Target target) {
  const char* what = target == Target::kTime ? "time model" : "energy model";
  if (model.target != target) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a ", what, ", got a model of the other kind (",
                     "form ", model.form, ")"));
  }
  if (absl::Status s = CheckForm(model.form, target); !s.ok()) return s;
  const size_t p = FindForm(model.form)->ParameterNames(model.knobs).size();
  if (model.coefficients.size() != p || model.parameter_names.size() != p) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " of form ", model.form, " with knobs ",
        KnobsToString(model.knobs), " has ", p, " parameters, got ",
        model.coefficients.size(), " coefficients and ",
        model.parameter_names.size(), " names"));
  }
  if (!model.covariance.empty() && model.covariance.size() != p * p) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " of form ", model.form, ": covariance has ",
                     model.covariance.size(), " values, expected ", p * p));
  }
  return absl::OkStatus();
}

absl::StatusOr<TimeEstimate> EstimateTime(const FittedModel& time_model,
                                          const CustomMode& mode) {
  if (absl::Status s = CheckFittedModel(time_model, Target::kTime); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckModeForKnobs(mode, time_model.knobs); !s.ok()) {
    return s;
  }
  const ModelForm& form = *FindForm(time_model.form);
  const ScaledMode x = Scale(mode);
  TimeEstimate te;
  te.time_s = form.Evaluate(time_model.knobs, x, TimeEstimate{},
                            time_model.coefficients.data());
  form.BusyShares(time_model.knobs, x, time_model.coefficients.data(), &te);
  return te;
}

absl::StatusOr<double> EstimateEnergy(const FittedModel& energy_model,
                                      const CustomMode& mode,
                                      const TimeEstimate& time) {
  if (absl::Status s = CheckFittedModel(energy_model, Target::kEnergy);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckModeForKnobs(mode, energy_model.knobs); !s.ok()) {
    return s;
  }
  const ModelForm& form = *FindForm(energy_model.form);
  const double v = form.Evaluate(energy_model.knobs, Scale(mode), time,
                                 energy_model.coefficients.data());
  return form.models_power() ? v * time.time_s : v;
}

}  // namespace powersweep::modeling
