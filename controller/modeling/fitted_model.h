// FittedModel: one fitted time or energy model of one workload on one
// device class, as a plain value the store can keep (form, coefficients and
// what they were fitted on), and its evaluation at a mode.
//
// An energy model takes the time model's prediction as an input: evaluate
// it only with the time model it was fitted with (FitEnergyModel's
// argument; its form is recorded in `time_form`).
//
// Plain data and pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_FITTED_MODEL_H_
#define POWERSWEEP_CONTROLLER_MODELING_FITTED_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

struct FittedModel {
  Target target = Target::kTime;
  std::string form;        // model_form.h
  std::string time_form;   // energy models: the form of their time model
  // Knobs that varied in the training modes; the others are assumed not to
  // matter (the model cannot know how they do).
  ActiveKnobs knobs;
  std::vector<std::string> parameter_names;
  std::vector<double> coefficients;  // same order as parameter_names
  // Unscaled covariance (J'J)^+ of the relative problem, p x p row-major
  // (least_squares.h); times residual_std^2 it is the parameters'
  // covariance.
  std::vector<double> covariance;
  std::vector<CustomMode> training_modes;  // distinct, in first-seen order
  int observations = 0;
  // observations - coefficients; 0 when the fit interpolates.
  int residual_dof = 0;
  // Standard deviation of the relative residuals (fitted - y) / y, as a
  // fraction, with residual_dof degrees of freedom (0 when dof is 0). For
  // power forms, of the power fit.
  double residual_std = 0;
  // Mean |fitted - observed| / observed over the training observations, in
  // percent; of energy for energy models (power forms: P_pred x t_pred).
  double in_sample_mape_pct = 0;
  // Fits with a reference prior (fit.h ReferencePrior): the prior's weight
  // and the factor the reference's value-scaled parameters were multiplied
  // by (the geometric mean of observed / reference value); 0 otherwise.
  double prior_weight = 0;
  double reference_scale = 0;
  // Prediction intervals' half-widths are multiplied by it (predict.h):
  // calibrated on the held-out modes of cross-validation
  // (cross_validation.h CrossValidation::interval_scale).
  double interval_scale = 1;
};

// The time model's estimate at `mode` (time and GPU busy share).
// InvalidArgument when `model` is not a time model or the mode lacks a knob
// the model varies.
absl::StatusOr<TimeEstimate> EstimateTime(const FittedModel& time_model,
                                          const CustomMode& mode);
// Epoch energy (J) predicted by `energy_model` at `mode` given the time
// model's estimate there.
absl::StatusOr<double> EstimateEnergy(const FittedModel& energy_model,
                                      const CustomMode& mode,
                                      const TimeEstimate& time);
// Internal consistency: known form of the right target, as many
// coefficients as parameter names as the form has for `knobs`, a p x p
// covariance. InvalidArgument naming the problem otherwise.
absl::Status CheckFittedModel(const FittedModel& model, Target target);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_FITTED_MODEL_H_
