// Transfer to a new workload (PowerTrain's job): predicting a workload
// profiled at a few modes from a reference model of another workload that
// was profiled at many.
//
// Different DNN workloads on one board differ mostly in how much work each
// unit does (CPU launches, GPU arithmetic, DRAM traffic), not in how the
// clocks turn work into time and power. So the new workload's model is the
// reference's form, fitted to the new observations with a prior centred on
// the reference's coefficients, scaled to the new workload's level
// (fit.h ReferencePrior). How strongly the prior binds (its weight) is
// chosen by leave-one-mode-out cross-validation over TransferWeights();
// with enough modes for a plain fit (SelectTimeModel: one more distinct
// mode than coefficients), every plain form competes too, and the lowest
// CV MAPE wins: transfer is used only where the data say it predicts
// better. The reported CV MAPE of the chosen weight is slightly optimistic
// (the weight was chosen on the same folds).
//
// Energy: the reference's energy form with its prior, on the chosen time
// model (when the reference's energy model was fitted with that time
// form), against the plain energy forms; each fold refits the time model
// as the chosen one was fitted (transferred or plain).
//
// Candidates appear in ModelSelection::candidates as "FORM (transfer,
// weight W)" next to the plain forms. The interval of a transferred model:
// its residual standard deviation is the larger of the in-sample one and
// the root mean square of the held-out relative errors (the prior makes
// the in-sample residuals small), dof = observations - 1.
//
// Errors: InvalidArgument when the reference is not of the target, its
// knobs are not all settable in the observations' modes, fewer than 2
// distinct modes (nothing to cross-validate; the message says so), or no
// candidate could be cross-validated (each one's reason). Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_TRANSFER_H_
#define POWERSWEEP_CONTROLLER_MODELING_TRANSFER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "controller/modeling/cross_validation.h"
#include "controller/modeling/fitted_model.h"

namespace powersweep::modeling {

// The prior weights tried. Time 1e-5, 1e-4, 1e-3: weak, so the fit follows
// the new workload's modes and the prior decides only what they cannot
// (how work splits between the units). Energy 0.1, 0.5, 2: strong, since
// power depends on the workload mostly through the busy shares the time
// model gives, which the power forms take as inputs. Chosen on the twins'
// transfer bench (tests/controller/modeling/transfer_bench.cc, README).
std::vector<double> TransferWeights(Target target);

struct TransferSelection {
  ModelSelection selection;
  bool transferred = false;   // the chosen model has the reference prior
  // How the chosen model refits without a mode (for the energy folds).
  TimeFit refit;
};

// `weights`: the prior weights tried (benches try one at a time).
absl::StatusOr<TransferSelection> TransferTimeModel(
    const std::vector<Observation>& obs, const FittedModel& reference_time,
    const std::vector<double>& weights = TransferWeights(Target::kTime));

// `time` is TransferTimeModel's answer for `time_obs`.
absl::StatusOr<TransferSelection> TransferEnergyModel(
    const std::vector<EnergyObservation>& obs,
    const std::vector<Observation>& time_obs, const TransferSelection& time,
    const FittedModel& reference_energy,
    const std::vector<double>& weights = TransferWeights(Target::kEnergy));

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_TRANSFER_H_
