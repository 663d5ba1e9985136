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
#include "controller/modeling/predict.h"

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

// What a fold predicts at its held-out mode.
struct FoldPrediction {
  double value = 0;
  bool has_interval = false;
  double lo = 0;
  double hi = 0;
};

// Sets cv->interval_scale from the held-out intervals (cross_validation.h).
void Calibrate(CrossValidation* cv) {
  std::vector<double> ratios;
  for (const HeldOutMode& h : cv->held_out) {
    if (!h.has_interval || !(h.hi > h.predicted)) continue;
    ratios.push_back(std::abs(h.observed - h.predicted) /
                     (h.hi - h.predicted));
  }
  const int n = static_cast<int>(ratios.size());
  if (n < kMinCalibrationModes) return;
  std::sort(ratios.begin(), ratios.end());
  const double median = n % 2 == 1 ? ratios[n / 2]
                                   : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  cv->interval_scale = std::clamp(median / kCalibratedMedianRatio, 0.2, 20.0);
  cv->interval_calibrated = true;
}

// Runs the folds: `predict(mode)` fits without `mode` and predicts it;
// `observed(mode)` is the mean observation at the mode and their count.
absl::StatusOr<CrossValidation> RunFolds(
    const std::string& form, const std::vector<CustomMode>& modes,
    const std::function<absl::StatusOr<FoldPrediction>(const CustomMode&)>&
        predict,
    const std::function<std::pair<double, int>(const CustomMode&)>& observed) {
  CrossValidation cv;
  cv.form = form;
  std::vector<double> apes;
  for (const CustomMode& mode : DistinctModes(modes)) {
    absl::StatusOr<FoldPrediction> pred = predict(mode);
    if (!pred.ok()) {
      return absl::Status(
          pred.status().code(),
          absl::StrCat("cross-validation of form ", form, ", holding out ",
                       ModeToString(mode), ": ", pred.status().message()));
    }
    HeldOutMode h;
    h.mode = mode;
    std::tie(h.observed, h.observations) = observed(mode);
    h.predicted = pred->value;
    h.ape_pct = 100 * std::abs(h.predicted - h.observed) / h.observed;
    if (pred->has_interval) {
      h.has_interval = true;
      h.lo = pred->lo;
      h.hi = pred->hi;
      h.covered = h.lo <= h.observed && h.observed <= h.hi;
      ++cv.interval_held_out;
      cv.interval_covered += h.covered;
    }
    apes.push_back(h.ape_pct);
    cv.held_out.push_back(h);
  }
  Calibrate(&cv);
  double sum = 0;
  for (double a : apes) sum += a;
  cv.mape_pct = sum / apes.size();
  std::sort(apes.begin(), apes.end());
  const size_t n = apes.size();
  cv.median_ape_pct =
      n % 2 == 1 ? apes[n / 2] : (apes[n / 2 - 1] + apes[n / 2]) / 2;
  return cv;
}

absl::Status CheckTwoModes(const std::string& label,
                           const std::vector<CustomMode>& modes) {
  const size_t n = DistinctModes(modes).size();
  if (n >= 2) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "leave-one-mode-out cross-validation of ", label,
      " needs at least 2 distinct modes, got ", n));
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
  model.interval_scale = cvs[best].interval_scale;
  out.model = std::move(model);
  out.cv = std::move(cvs[best]);
  return out;
}

}  // namespace

absl::StatusOr<CrossValidation> CrossValidateTimeWith(
    const std::string& label, const std::vector<Observation>& obs,
    const TimeFit& fit) {
  const std::vector<CustomMode> modes = ModesOf(obs);
  PS_RETURN_IF_ERROR(CheckTwoModes(label, modes));
  return RunFolds(
      label, modes,
      [&](const CustomMode& mode) -> absl::StatusOr<FoldPrediction> {
        PS_ASSIGN_OR_RETURN(FittedModel m, fit(Without(obs, mode)));
        PS_ASSIGN_OR_RETURN(Predictor predictor, Predictor::Create(m));
        PS_ASSIGN_OR_RETURN(ModePrediction p, predictor.Predict(mode));
        return FoldPrediction{p.time_s, p.has_interval, p.time_lo_s,
                              p.time_hi_s};
      },
      [&](const CustomMode& mode) {
        return MeanAt(obs, mode, [](const Observation& o) { return o.value; });
      });
}

absl::StatusOr<CrossValidation> CrossValidateEnergyWith(
    const std::string& label, const std::vector<EnergyObservation>& obs,
    const std::vector<Observation>& time_obs, const TimeFit& time_fit,
    const EnergyFit& energy_fit) {
  const std::vector<CustomMode> modes = ModesOf(obs);
  PS_RETURN_IF_ERROR(CheckTwoModes(label, modes));
  return RunFolds(
      label, modes,
      [&](const CustomMode& mode) -> absl::StatusOr<FoldPrediction> {
        PS_ASSIGN_OR_RETURN(FittedModel t, time_fit(Without(time_obs, mode)));
        PS_ASSIGN_OR_RETURN(FittedModel e, energy_fit(Without(obs, mode), t));
        PS_ASSIGN_OR_RETURN(Predictor predictor,
                            Predictor::Create(std::move(t), std::move(e)));
        PS_ASSIGN_OR_RETURN(ModePrediction p, predictor.Predict(mode));
        return FoldPrediction{p.energy_j, p.has_interval, p.energy_lo_j,
                              p.energy_hi_j};
      },
      [&](const CustomMode& mode) {
        return MeanAt(obs, mode,
                      [](const EnergyObservation& o) { return o.energy_j; });
      });
}

absl::StatusOr<CrossValidation> CrossValidateTime(
    const std::string& form, const std::vector<Observation>& obs) {
  if (absl::Status s = CheckForm(form, Target::kTime); !s.ok()) return s;
  if (absl::Status s = CheckEnoughModes(form, ModesOf(obs)); !s.ok()) return s;
  return CrossValidateTimeWith(
      form, obs,
      [&](const std::vector<Observation>& o) { return FitTimeModel(form, o); });
}

absl::StatusOr<CrossValidation> CrossValidateEnergy(
    const std::string& energy_form, const std::vector<EnergyObservation>& obs,
    const std::string& time_form, const std::vector<Observation>& time_obs) {
  if (absl::Status s = CheckForm(energy_form, Target::kEnergy); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckForm(time_form, Target::kTime); !s.ok()) return s;
  if (absl::Status s = CheckEnoughModes(energy_form, ModesOf(obs)); !s.ok()) {
    return s;
  }
  return CrossValidateEnergyWith(
      energy_form, obs, time_obs,
      [&](const std::vector<Observation>& o) {
        return FitTimeModel(time_form, o);
      },
      [&](const std::vector<EnergyObservation>& o, const FittedModel& t) {
        return FitEnergyModel(energy_form, o, t);
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
