// Leave-one-mode-out cross-validation and the choice of a model form.
//
// For each distinct mode: fit the form without every observation of that
// mode, predict the mode, and compare with the mean of its observations.
// The absolute percentage error per held-out mode and their mean (the CV
// MAPE) say how the model does on modes it has not seen. A fold can lose a
// knob's variation (the held-out mode was the only one to differ in it); it
// is then fitted without that knob, as a model fitted on those modes would
// be. For energy, each fold also refits the time model (same time form)
// without the mode, so the held-out mode is unseen by both.
//
// Selection fits every candidate form that can be cross-validated and
// keeps the lowest CV MAPE (ties: fewer coefficients, then the order
// given); every candidate's figure or the reason it was left out is
// reported. The chosen model gets its CV's interval_scale.
//
// Errors: as fit.h; cross-validating needs one more distinct mode than the
// form has coefficients: InvalidArgument "leave-one-mode-out
// cross-validation of form reciprocal needs at least 6 distinct modes (5
// coefficients + 1), got 5"; a fold that cannot be fitted fails the whole
// cross-validation, naming the held-out mode. Selection fails
// (InvalidArgument, listing each form's reason) when no form can be
// cross-validated.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_CROSS_VALIDATION_H_
#define POWERSWEEP_CONTROLLER_MODELING_CROSS_VALIDATION_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/modeling/fitted_model.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

struct HeldOutMode {
  CustomMode mode;
  int observations = 0;   // of this mode (all held out together)
  double observed = 0;    // their mean (s or J)
  double predicted = 0;   // by the model fitted without them
  double ape_pct = 0;     // |predicted - observed| / observed x 100
  // The fold model's 90% prediction interval at the mode (predict.h), when
  // it has one, and whether it holds the observed mean.
  bool has_interval = false;
  double lo = 0;
  double hi = 0;
  bool covered = false;
};

struct CrossValidation {
  std::string form;
  std::vector<HeldOutMode> held_out;  // one per distinct mode, first seen first
  double mape_pct = 0;                // mean of held_out[].ape_pct
  double median_ape_pct = 0;
  // Held-out modes whose fold model had an interval, and how many of those
  // intervals held the observed mean: the intervals' coverage on modes the
  // model has not seen (90% if they are calibrated).
  int interval_held_out = 0;
  int interval_covered = 0;
  // What the intervals must be multiplied by to cover about 90% of the
  // held-out errors. With n >= kMinCalibrationModes held-out intervals:
  // the median of r = |observed - predicted| / (upper end - predicted)
  // over kCalibratedMedianRatio, within [0.2, 20]. For errors normal with
  // the interval's sigma, |error| / sigma has median 0.674 and the 90%
  // half-width is 1.645 sigma, so calibrated intervals have median r =
  // 0.41. The median, not a 90% quantile of r: with the 8 modes of a plan
  // that quantile is the largest r, one extrapolated corner's (one such
  // fold gave a scale of 11 on a twin where the model erred by 0.75%).
  // 1 and interval_calibrated false with fewer held-out intervals.
  double interval_scale = 1;
  bool interval_calibrated = false;
};
inline constexpr int kMinCalibrationModes = 5;
inline constexpr double kCalibratedMedianRatio = 0.674 / 1.645;

// Fits a time model to observations, or an energy model given a time model:
// what each fold does (e.g. FitTimeModel with a form, or with a reference
// prior, transfer.h).
using TimeFit = std::function<absl::StatusOr<FittedModel>(
    const std::vector<Observation>&)>;
using EnergyFit = std::function<absl::StatusOr<FittedModel>(
    const std::vector<EnergyObservation>&, const FittedModel& time_model)>;

// Leave-one-mode-out with the caller's fits, named `label` in errors and
// in CrossValidation::form. Needs two distinct modes; the fits decide how
// many more they need (their error names the fold).
absl::StatusOr<CrossValidation> CrossValidateTimeWith(
    const std::string& label, const std::vector<Observation>& obs,
    const TimeFit& fit);
// Each fold refits the time model with `time_fit` on `time_obs` without the
// held-out mode, then the energy model with `energy_fit`.
absl::StatusOr<CrossValidation> CrossValidateEnergyWith(
    const std::string& label, const std::vector<EnergyObservation>& obs,
    const std::vector<Observation>& time_obs, const TimeFit& time_fit,
    const EnergyFit& energy_fit);

absl::StatusOr<CrossValidation> CrossValidateTime(
    const std::string& form, const std::vector<Observation>& obs);

// `time_obs` are the time observations the time model is fitted to (with
// `time_form`) in each fold.
absl::StatusOr<CrossValidation> CrossValidateEnergy(
    const std::string& energy_form, const std::vector<EnergyObservation>& obs,
    const std::string& time_form, const std::vector<Observation>& time_obs);

struct FormCandidate {
  std::string form;
  int coefficients = 0;          // 0 when the form does not apply
  bool cross_validated = false;
  double cv_mape_pct = 0;        // when cross_validated
  double cv_median_ape_pct = 0;  // when cross_validated
  std::string reason;            // why not, otherwise
};

struct ModelSelection {
  FittedModel model;       // the chosen form, fitted on all observations
  CrossValidation cv;      // its cross-validation
  std::vector<FormCandidate> candidates;  // every form tried, in order
};

absl::StatusOr<ModelSelection> SelectTimeModel(
    const std::vector<Observation>& obs,
    const std::vector<std::string>& forms = TimeFormNames());

// The energy model for `time_model` (fitted to `time_obs`).
absl::StatusOr<ModelSelection> SelectEnergyModel(
    const std::vector<EnergyObservation>& obs, const FittedModel& time_model,
    const std::vector<Observation>& time_obs,
    const std::vector<std::string>& forms = EnergyFormNames());

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_CROSS_VALIDATION_H_
