#include "controller/modeling/cross_validation.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/modeling/fit.h"

namespace powersweep::modeling {
namespace {

template <typename Obs>
std::vector<CustomMode> ModesOf(const std::vector<Obs>& obs) {
  std::vector<CustomMode> modes;
  for (const Obs& o : obs) modes.push_back(o.mode);
  return modes;
}

template <typename Obs>
std::vector<Obs> Without(const std::vector<Obs>& obs, const CustomMode& mode) {
  std::vector<Obs> out;
  for (const Obs& o : obs) {
    if (!(o.mode == mode)) out.push_back(o);
  }
  return out;
}

// Checks the form can be fitted on all of `modes` with a mode to spare.
absl::Status CheckEnoughModes(const std::string& form,
                              const std::vector<CustomMode>& modes) {
  const std::vector<CustomMode> distinct = DistinctModes(modes);
  const ActiveKnobs knobs = KnobsThatVary(modes);
  const ModelForm* f = FindForm(form);
  if (absl::Status s = f->Applicable(knobs); !s.ok()) return s;
  const size_t p = f->ParameterNames(knobs).size();
  if (distinct.size() < p + 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "leave-one-mode-out cross-validation of form ", form,
        " needs at least ", p + 1, " distinct modes (", p,
        " coefficients + 1), got ", distinct.size()));
  }
  return absl::OkStatus();
}

// Runs the folds: `predict(mode)` fits without `mode` and predicts it;
// `observed(mode)` is the mean observation at the mode and their count.
absl::StatusOr<CrossValidation> RunFolds(
    const std::string& form, const std::vector<CustomMode>& modes,
    const std::function<absl::StatusOr<double>(const CustomMode&)>& predict,
    const std::function<std::pair<double, int>(const CustomMode&)>& observed) {
  CrossValidation cv;
  cv.form = form;
  std::vector<double> apes;
  for (const CustomMode& mode : DistinctModes(modes)) {
    absl::StatusOr<double> pred = predict(mode);
    if (!pred.ok()) {
      return absl::Status(
          pred.status().code(),
          absl::StrCat("cross-validation of form ", form, ", holding out ",
                       ModeToString(mode), ": ", pred.status().message()));
    }
    HeldOutMode h;
    h.mode = mode;
    std::tie(h.observed, h.observations) = observed(mode);
    h.predicted = *pred;
    h.ape_pct = 100 * std::abs(h.predicted - h.observed) / h.observed;
    apes.push_back(h.ape_pct);
    cv.held_out.push_back(h);
  }
  double sum = 0;
  for (double a : apes) sum += a;
  cv.mape_pct = sum / apes.size();
  std::sort(apes.begin(), apes.end());
  const size_t n = apes.size();
  cv.median_ape_pct =
      n % 2 == 1 ? apes[n / 2] : (apes[n / 2 - 1] + apes[n / 2]) / 2;
  return cv;
}

template <typename Obs, typename Value>
std::pair<double, int> MeanAt(const std::vector<Obs>& obs,
                              const CustomMode& mode, Value value) {
  double sum = 0;
  int n = 0;
  for (const Obs& o : obs) {
    if (o.mode == mode) {
      sum += value(o);
      ++n;
    }
  }
  return {n > 0 ? sum / n : 0, n};
}

// Chooses among `forms` given a cross-validation and a final fit per form.
absl::StatusOr<ModelSelection> Select(
    const std::vector<std::string>& forms, const ActiveKnobs& knobs,
    const std::function<absl::StatusOr<CrossValidation>(const std::string&)>&
        cross_validate,
    const std::function<absl::StatusOr<FittedModel>(const std::string&)>& fit) {
  ModelSelection out;
  int best = -1;
  std::vector<CrossValidation> cvs(forms.size());
  for (size_t i = 0; i < forms.size(); ++i) {
    FormCandidate c;
    c.form = forms[i];
    const ModelForm* f = FindForm(forms[i]);
    if (f != nullptr && f->Applicable(knobs).ok()) {
      c.coefficients = static_cast<int>(f->ParameterNames(knobs).size());
    }
    absl::StatusOr<CrossValidation> cv = cross_validate(forms[i]);
    if (cv.ok()) {
      c.cross_validated = true;
      c.cv_mape_pct = cv->mape_pct;
      c.cv_median_ape_pct = cv->median_ape_pct;
      cvs[i] = *std::move(cv);
      const FormCandidate* b = best >= 0 ? &out.candidates[best] : nullptr;
      if (b == nullptr || c.cv_mape_pct < b->cv_mape_pct ||
          (c.cv_mape_pct == b->cv_mape_pct &&
           c.coefficients < b->coefficients)) {
        best = static_cast<int>(i);
      }
    } else {
      c.reason = std::string(cv.status().message());
    }
    out.candidates.push_back(std::move(c));
  }
  if (best < 0) {
    std::vector<std::string> reasons;
    for (const FormCandidate& c : out.candidates) {
      reasons.push_back(absl::StrCat(c.form, ": ", c.reason));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("no model form could be cross-validated (",
                     absl::StrJoin(reasons, "; "), ")"));
  }
  PS_ASSIGN_OR_RETURN(FittedModel model, fit(forms[best]));
  out.model = std::move(model);
  out.cv = std::move(cvs[best]);
  return out;
}

}  // namespace

absl::StatusOr<CrossValidation> CrossValidateTime(
    const std::string& form, const std::vector<Observation>& obs) {
  if (absl::Status s = CheckForm(form, Target::kTime); !s.ok()) return s;
  const std::vector<CustomMode> modes = ModesOf(obs);
  if (absl::Status s = CheckEnoughModes(form, modes); !s.ok()) return s;
  return RunFolds(
      form, modes,
      [&](const CustomMode& mode) -> absl::StatusOr<double> {
        PS_ASSIGN_OR_RETURN(FittedModel m,
                            FitTimeModel(form, Without(obs, mode)));
        PS_ASSIGN_OR_RETURN(TimeEstimate te, EstimateTime(m, mode));
        return te.time_s;
      },
      [&](const CustomMode& mode) {
        return MeanAt(obs, mode, [](const Observation& o) { return o.value; });
      });
}

absl::StatusOr<CrossValidation> CrossValidateEnergy(
    const std::string& energy_form, const std::vector<EnergyObservation>& obs,
    const std::string& time_form, const std::vector<Observation>& time_obs) {
  if (absl::Status s = CheckForm(energy_form, Target::kEnergy); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckForm(time_form, Target::kTime); !s.ok()) return s;
  const std::vector<CustomMode> modes = ModesOf(obs);
  if (absl::Status s = CheckEnoughModes(energy_form, modes); !s.ok()) return s;
  return RunFolds(
      energy_form, modes,
      [&](const CustomMode& mode) -> absl::StatusOr<double> {
        PS_ASSIGN_OR_RETURN(FittedModel t,
                            FitTimeModel(time_form, Without(time_obs, mode)));
        PS_ASSIGN_OR_RETURN(FittedModel e,
                            FitEnergyModel(energy_form, Without(obs, mode), t));
        PS_ASSIGN_OR_RETURN(TimeEstimate te, EstimateTime(t, mode));
        return EstimateEnergy(e, mode, te);
      },
      [&](const CustomMode& mode) {
        return MeanAt(obs, mode,
                      [](const EnergyObservation& o) { return o.energy_j; });
      });
}

absl::StatusOr<ModelSelection> SelectTimeModel(
    const std::vector<Observation>& obs,
    const std::vector<std::string>& forms) {
  return Select(
      forms, KnobsThatVary(ModesOf(obs)),
      [&](const std::string& f) { return CrossValidateTime(f, obs); },
      [&](const std::string& f) { return FitTimeModel(f, obs); });
}

absl::StatusOr<ModelSelection> SelectEnergyModel(
    const std::vector<EnergyObservation>& obs, const FittedModel& time_model,
    const std::vector<Observation>& time_obs,
    const std::vector<std::string>& forms) {
  if (absl::Status s = CheckFittedModel(time_model, Target::kTime); !s.ok()) {
    return s;
  }
  return Select(
      forms, KnobsThatVary(ModesOf(obs)),
      [&](const std::string& f) {
        return CrossValidateEnergy(f, obs, time_model.form, time_obs);
      },
      [&](const std::string& f) {
        return FitEnergyModel(f, obs, time_model);
      });
}

}  // namespace powersweep::modeling
