#include "controller/modeling/least_squares.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace powersweep::modeling {
namespace {

std::vector<double> ToVector(const Eigen::MatrixXd& m) {
  std::vector<double> out(m.rows() * m.cols());
  for (int r = 0; r < m.rows(); ++r) {
    for (int c = 0; c < m.cols(); ++c) out[r * m.cols() + c] = m(r, c);
  }
  return out;
}

// The parameters a prior constrains (finite positive scale).
std::vector<int> PriorRows(const LeastSquaresPrior* prior, int p) {
  std::vector<int> rows;
  if (prior == nullptr || !(prior->weight > 0)) return rows;
  for (int k = 0; k < p && k < static_cast<int>(prior->scale.size()) &&
                  k < static_cast<int>(prior->mean.size());
       ++k) {
    if (std::isfinite(prior->scale[k]) && prior->scale[k] > 0 &&
        std::isfinite(prior->mean[k])) {
      rows.push_back(k);
    }
  }
  return rows;
}

Eigen::MatrixXd PseudoInverse(const Eigen::MatrixXd& a) {
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(a);
  return cod.pseudoInverse();
}

// The nonlinear problem in the form's internal parametrisation.
class Problem {
 public:
  Problem(const ModelForm& form, const ActiveKnobs& knobs,
          const std::vector<ScaledMode>& xs,
          const std::vector<TimeEstimate>& estimates,
          const std::vector<double>& y, int p,
          const LeastSquaresPrior* prior)
      : form_(form),
        knobs_(knobs),
        xs_(xs),
        est_(estimates),
        y_(y),
        p_(p),
        prior_(prior),
        prior_rows_(PriorRows(prior, p)) {}

  std::vector<double> Natural(const Eigen::VectorXd& theta) const {
    std::vector<double> nat(p_);
    form_.ToNatural(theta.data(), nat.data(), p_);
    return nat;
  }

  double Value(const std::vector<double>& nat, size_t i) const {
    const TimeEstimate te = est_.empty() ? TimeEstimate{} : est_[i];
    return form_.Evaluate(knobs_, xs_[i], te, nat.data());
  }

  // The relative residuals, then the prior's rows.
  Eigen::VectorXd Residuals(const Eigen::VectorXd& theta) const {
    const std::vector<double> nat = Natural(theta);
    const size_t n = y_.size();
    Eigen::VectorXd r(n + prior_rows_.size());
    for (size_t i = 0; i < n; ++i) {
      r(i) = (Value(nat, i) - y_[i]) / y_[i];
    }
    const double w = prior_rows_.empty() ? 0 : std::sqrt(prior_->weight);
    for (size_t j = 0; j < prior_rows_.size(); ++j) {
      const int k = prior_rows_[j];
      r(n + j) = w * (theta(k) - prior_->mean[k]) / prior_->scale[k];
    }
    return r;
  }

  // Central differences in the internal parametrisation.
  Eigen::MatrixXd Jacobian(const Eigen::VectorXd& theta) const {
    Eigen::MatrixXd j(y_.size() + prior_rows_.size(), p_);
    for (int k = 0; k < p_; ++k) {
      const double h = 1e-6 * std::max(1.0, std::abs(theta(k)));
      Eigen::VectorXd up = theta, down = theta;
      up(k) += h;
      down(k) -= h;
      j.col(k) = (Residuals(up) - Residuals(down)) / (2 * h);
    }
    return j;
  }

  int p() const { return p_; }

 private:
  const ModelForm& form_;
  const ActiveKnobs& knobs_;
  const std::vector<ScaledMode>& xs_;
  const std::vector<TimeEstimate>& est_;
  const std::vector<double>& y_;
  const int p_;
  const LeastSquaresPrior* prior_;
  const std::vector<int> prior_rows_;
};

// Levenberg-Marquardt with Marquardt's diagonal scaling; returns the cost.
double Minimize(const Problem& problem, Eigen::VectorXd* theta) {
  constexpr int kMaxIterations = 300;
  double lambda = 1e-3;
  Eigen::VectorXd r = problem.Residuals(*theta);
  double cost = r.squaredNorm();
  for (int it = 0; it < kMaxIterations && cost > 1e-28; ++it) {
    const Eigen::MatrixXd j = problem.Jacobian(*theta);
    const Eigen::MatrixXd a = j.transpose() * j;
    const Eigen::VectorXd g = j.transpose() * r;
    bool improved = false;
    for (int attempt = 0; attempt < 12; ++attempt) {
      Eigen::MatrixXd damped = a;
      damped.diagonal() += lambda * (a.diagonal().array() + 1e-12).matrix();
      const Eigen::VectorXd step = damped.ldlt().solve(-g);
      if (!step.allFinite()) {
        lambda *= 10;
        continue;
      }
      const Eigen::VectorXd candidate = *theta + step;
      const Eigen::VectorXd r2 = problem.Residuals(candidate);
      const double cost2 = r2.squaredNorm();
      if (std::isfinite(cost2) && cost2 < cost) {
        const double gain = cost - cost2;
        *theta = candidate;
        r = r2;
        cost = cost2;
        lambda = std::max(lambda / 3, 1e-12);
        improved = true;
        if (gain < 1e-15 * std::max(cost, 1e-300) ||
            step.norm() < 1e-12 * (1 + theta->norm())) {
          return cost;
        }
        break;
      }
      lambda *= 4;
    }
    if (!improved) break;
  }
  return cost;
}

}  // namespace

absl::StatusOr<LeastSquaresResult> RelativeLinearLeastSquares(
    const std::vector<std::vector<double>>& features,
    const std::vector<double>& y, const std::string& what,
    const LeastSquaresPrior* prior) {
  const int n = static_cast<int>(y.size());
  const int p = features.empty() ? 0 : static_cast<int>(features[0].size());
  const std::vector<int> prior_rows = PriorRows(prior, p);
  const int rows = n + static_cast<int>(prior_rows.size());
  Eigen::MatrixXd xw = Eigen::MatrixXd::Zero(rows, p);
  Eigen::VectorXd rhs = Eigen::VectorXd::Ones(rows);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < p; ++k) xw(i, k) = features[i][k] / y[i];
  }
  for (size_t j = 0; j < prior_rows.size(); ++j) {
    const int k = prior_rows[j];
    const double w = std::sqrt(prior->weight) / prior->scale[k];
    xw(n + j, k) = w;
    rhs(n + j) = w * prior->mean[k];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(xw);
  if (qr.rank() < p) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the design has rank ", qr.rank(), " < ", p,
        " coefficients (the modes do not separate the form's terms; "
        "profile modes that differ in more knobs)"));
  }
  const Eigen::VectorXd beta = qr.solve(rhs);
  LeastSquaresResult out;
  out.params.assign(beta.data(), beta.data() + p);
  out.covariance = ToVector(PseudoInverse(xw.transpose() * xw));
  out.rank = static_cast<int>(qr.rank());
  out.fitted.resize(n);
  for (int i = 0; i < n; ++i) out.fitted[i] = (xw.row(i) * beta)(0) * y[i];
  return out;
}

absl::StatusOr<LeastSquaresResult> RelativeNonlinearLeastSquares(
    const ModelForm& form, const ActiveKnobs& knobs,
    const std::vector<ScaledMode>& xs,
    const std::vector<TimeEstimate>& estimates, const std::vector<double>& y,
    const LeastSquaresPrior* prior) {
  const int p = static_cast<int>(form.ParameterNames(knobs).size());
  const Problem problem(form, knobs, xs, estimates, y, p, prior);
  double best_cost = std::numeric_limits<double>::infinity();
  Eigen::VectorXd best;
  std::vector<Eigen::VectorXd> starts;
  if (prior != nullptr && static_cast<int>(prior->mean.size()) == p) {
    starts.push_back(Eigen::Map<const Eigen::VectorXd>(prior->mean.data(), p));
  }
  for (const std::vector<double>& start : form.StartingPoints(knobs, xs, y)) {
    Eigen::VectorXd theta(p);
    form.ToInternal(start.data(), theta.data(), p);
    starts.push_back(theta);
  }
  for (Eigen::VectorXd theta : starts) {
    const double cost = Minimize(problem, &theta);
    if (cost < best_cost) {
      best_cost = cost;
      best = theta;
    }
  }
  if (best.size() != p) {
    return absl::InvalidArgumentError(absl::StrCat(
        "form ", form.name(), ": no starting point led to a finite fit"));
  }
  LeastSquaresResult out;
  out.params = problem.Natural(best);
  const Eigen::MatrixXd j = problem.Jacobian(best);
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(j);
  out.rank = static_cast<int>(cod.rank());
  // d natural / d internal (the parametrisation is element-wise).
  Eigen::VectorXd d(p);
  for (int k = 0; k < p; ++k) {
    const double h = 1e-6 * std::max(1.0, std::abs(best(k)));
    Eigen::VectorXd up = best, down = best;
    up(k) += h;
    down(k) -= h;
    d(k) = (problem.Natural(up)[k] - problem.Natural(down)[k]) / (2 * h);
  }
  const Eigen::MatrixXd cov_internal = PseudoInverse(j.transpose() * j);
  out.covariance = ToVector(d.asDiagonal() * cov_internal * d.asDiagonal());
  out.fitted.resize(y.size());
  for (size_t i = 0; i < y.size(); ++i) out.fitted[i] = problem.Value(out.params, i);
  return out;
}

}  // namespace powersweep::modeling
