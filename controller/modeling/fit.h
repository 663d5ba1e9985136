// Fitting time and energy models to observations (least squares on
// relative residuals, least_squares.h).
//
// Errors (InvalidArgument, with the reason):
//   - no observations; a value (time, energy, or an energy observation's
//     time) not positive and finite, naming the observation's index and mode;
//   - a mode without a knob that varies across the observations;
//   - fewer distinct modes than coefficients: "need at least 5 distinct
//     modes for form reciprocal (5 coefficients), got 3";
//   - a linear design of rank < coefficients;
//   - an unknown form (listing the known ones); a form that cannot use the
//     knobs that vary (FailedPrecondition, e.g. overlap with one clock).
// Observations at the same mode (repetitions) all enter the fit; the
// coefficient count is checked against distinct modes.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_FIT_H_
#define POWERSWEEP_CONTROLLER_MODELING_FIT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/modeling/fitted_model.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

// Epoch time (Observation::value in seconds) with a time form.
absl::StatusOr<FittedModel> FitTimeModel(const std::string& form,
                                         const std::vector<Observation>& obs);

// Epoch energy with an energy form, using `time_model`'s predictions as the
// input time (and GPU busy share). Power forms are fitted to energy_j /
// time_s of each observation.
absl::StatusOr<FittedModel> FitEnergyModel(
    const std::string& form, const std::vector<EnergyObservation>& obs,
    const FittedModel& time_model);

// A fit that transfers from a reference model of another workload
// (transfer.h): the reference's form over the reference's knobs (also
// those that do not vary in the observations), with a Gaussian prior
// (least_squares.h) centred on the reference's coefficients, the ones that
// scale with the value (ModelForm::ScalesWithValue) multiplied by the
// geometric mean of observed / reference value over the observations.
// Prior scales: linear forms, the coefficient change that moves the mean
// value by 100%; nonlinear forms, 1 in the internal parametrisation (a
// factor of e on overlap's work terms), with work terms below 1% of the
// largest raised to it (a unit idle in the reference may work in the new
// workload). Determined from one observation up; residual_dof is then
// observations - 1 (at least 1).
struct ReferencePrior {
  const FittedModel* reference = nullptr;  // of the same target
  double weight = 0;                       // > 0
};
absl::StatusOr<FittedModel> FitTimeModel(const std::vector<Observation>& obs,
                                         const ReferencePrior& prior);
absl::StatusOr<FittedModel> FitEnergyModel(
    const std::vector<EnergyObservation>& obs, const FittedModel& time_model,
    const ReferencePrior& prior);

// The distinct modes of `modes`, in first-seen order.
std::vector<CustomMode> DistinctModes(const std::vector<CustomMode>& modes);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_FIT_H_
