// Least squares on relative residuals, the solver under fit.h.
//
// Both solvers minimise sum_i ((f(x_i) - y_i) / y_i)^2: the error measure of
// the models is a percentage, and observed times and energies span two
// orders of magnitude across a mode space, so absolute residuals would let
// the slowest modes decide the fit. Linear forms: one ColPivHouseholderQR
// solve of the rows x_i / y_i against 1. Nonlinear forms: Levenberg-
// Marquardt in the form's unconstrained parametrisation, from each of the
// form's starting points (deterministic), keeping the lowest cost.
//
// The covariance returned is the unscaled (J'J)^+ of the relative problem
// (J = the rows x_i / y_i, or the Jacobian of the relative residuals at the
// solution, converted to natural parameters): multiplied by the residual
// variance it is the parameters' covariance; predict.h uses it for
// intervals.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_LEAST_SQUARES_H_
#define POWERSWEEP_CONTROLLER_MODELING_LEAST_SQUARES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

// A Gaussian prior on the parameters (transfer from a reference model,
// transfer.h), as extra residual rows sqrt(weight) * (theta_k - mean_k) /
// scale_k next to the relative residuals. Linear forms: theta is the
// natural coefficients; nonlinear forms: the form's internal
// parametrisation (ModelForm::ToInternal). A scale that is not finite and
// positive leaves that parameter without a prior. With a prior the problem
// is determined with fewer observations than parameters; the covariance
// then includes the prior's rows.
struct LeastSquaresPrior {
  std::vector<double> mean;
  std::vector<double> scale;
  double weight = 0;
};

struct LeastSquaresResult {
  std::vector<double> params;       // natural parameters
  std::vector<double> covariance;   // p x p, row-major, unscaled
  std::vector<double> fitted;       // f(x_i)
  int rank = 0;                     // of the (relative) design / Jacobian
};

// Rows of `features` are the observations' feature rows (all the same
// size p). InvalidArgument (naming `what`) when the relative design has
// rank < p.
absl::StatusOr<LeastSquaresResult> RelativeLinearLeastSquares(
    const std::vector<std::vector<double>>& features,
    const std::vector<double>& y, const std::string& what,
    const LeastSquaresPrior* prior = nullptr);

// Fits a nonlinear form. `estimates` are passed to the form (unused by the
// time forms). A parameter the data cannot identify keeps a value from a
// starting point and shows as a lower rank. InvalidArgument only when no
// starting point leads to a finite cost. With a prior, its mean is the
// first starting point.
absl::StatusOr<LeastSquaresResult> RelativeNonlinearLeastSquares(
    const ModelForm& form, const ActiveKnobs& knobs,
    const std::vector<ScaledMode>& xs,
    const std::vector<TimeEstimate>& estimates, const std::vector<double>& y,
    const LeastSquaresPrior* prior = nullptr);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_LEAST_SQUARES_H_
