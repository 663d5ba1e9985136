// Prediction of epoch time, energy and power at any mode of a device
// class's space, with prediction intervals.
//
// Intervals: t-based prediction intervals on the relative scale the models
// are fitted on. At a mode with prediction y and gradient g of the model
// with respect to its parameters (the features for linear forms; central
// differences for nonlinear ones):
//     half = t_{(1+level)/2, dof} * s * sqrt(1 + (g/y)' (J'J)^+ (g/y))
//     interval = [y (1 - half), y (1 + half)]  (lower end at least 0)
// with s the residual standard deviation of the relative residuals and
// (J'J)^+ the model's unscaled covariance (FittedModel). Nonlinear forms
// use the linearisation at the fit (delta method). Energy: the "paper" form
// is conditional on the predicted time; power forms combine the power and
// time half-widths in quadrature (energy = power x time). Power: the power
// model's own interval (power forms) or the energy one ("paper"). The
// intervals are conditional on the model form being right: they do not
// include the form's misfit beyond what the residuals show. So each
// model's half-widths are then multiplied by its interval_scale
// (FittedModel), calibrated on cross-validation's held-out modes to cover
// about 90% of the errors on modes the model has not seen (widening where
// the form misfits, narrowing where t quantiles on few degrees of freedom
// are wider than the errors); an energy model's scale applies to the
// energy half-width with the time part uncalibrated, as it was measured. A model with no
// residual degrees of freedom (as many distinct observations as
// coefficients) or no covariance has no interval: has_interval is false and
// the bounds are NaN.
//
// A knob the models did not see vary is ignored: prediction at a mode that
// differs only in it returns the same figures.
//
// Predictor is immutable after Create; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_PREDICT_H_
#define POWERSWEEP_CONTROLLER_MODELING_PREDICT_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "controller/modeling/fitted_model.h"
#include "controller/modeling/mode_point.h"

namespace powersweep::modeling {

struct ModePrediction {
  CustomMode mode;
  double time_s = 0;
  double time_lo_s = 0;
  double time_hi_s = 0;
  bool has_energy = false;   // an energy model was given
  double energy_j = 0;
  double energy_lo_j = 0;
  double energy_hi_j = 0;
  double power_w = 0;        // energy_j / time_s (0 without energy)
  double power_lo_w = 0;     // power forms: the power model's interval;
  double power_hi_w = 0;     // "paper": the energy interval over time_s
  bool has_interval = false; // false: the bounds are NaN
};

// Which figures of a prediction the queries should see: the predictions,
// or the upper ends of the intervals (a conservative choice under a
// budget: a mode is then only picked if it is likely to meet it). A
// prediction without an interval gives its predicted values either way.
enum class Bound { kPredicted, kUpper };
std::vector<ModePoint> ToPoints(const std::vector<ModePrediction>& p,
                                Bound bound = Bound::kPredicted);

class Predictor {
 public:
  // InvalidArgument when a model is inconsistent (fitted_model.h
  // CheckFittedModel), `energy` was fitted with another time form, or
  // level is not in (0, 1).
  static absl::StatusOr<Predictor> Create(
      FittedModel time, std::optional<FittedModel> energy = std::nullopt,
      double level = 0.9);

  // InvalidArgument when `mode` lacks a knob the models vary.
  absl::StatusOr<ModePrediction> Predict(const CustomMode& mode) const;
  // Every mode of `space`, in index order. InvalidArgument when the space
  // is empty or lacks a knob the models vary (e.g. a class with no GPU
  // table for a model fitted with GPU frequencies).
  absl::StatusOr<std::vector<ModePrediction>> PredictSpace(
      const ModeSpace& space) const;

  const FittedModel& time_model() const { return time_; }
  const std::optional<FittedModel>& energy_model() const { return energy_; }
  double level() const { return level_; }

 private:
  Predictor(FittedModel time, std::optional<FittedModel> energy, double level);
  // No checks: the mode has the knobs the models vary.
  ModePrediction PredictUnchecked(const CustomMode& mode) const;

  FittedModel time_;
  std::optional<FittedModel> energy_;
  double level_;
  double time_quantile_ = 0;    // 0 when no dof
  double energy_quantile_ = 0;
};

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_PREDICT_H_
