#include "controller/modeling/student_t.h"

#include <cmath>

namespace powersweep::modeling {

double StudentTCentralProbability(double t, int dof) {
  if (t <= 0) return 0;
  const double theta = std::atan(t / std::sqrt(static_cast<double>(dof)));
  const double s = std::sin(theta);
  const double c2 = std::cos(theta) * std::cos(theta);
  if (dof % 2 == 1) {
    if (dof == 1) return 2 * theta / M_PI;
    // (2/pi) (theta + sin cos (1 + 2/3 c2 + 2.4/3.5 c2^2 + ...)), up to
    // the term in c2^((dof-3)/2).
    double term = 1, sum = 1;
    for (int k = 1; k <= (dof - 3) / 2; ++k) {
      term *= c2 * (2.0 * k) / (2.0 * k + 1);
      sum += term;
    }
    return 2 / M_PI * (theta + s * std::cos(theta) * sum);
  }
  // sin (1 + 1/2 c2 + 1.3/2.4 c2^2 + ...), up to the term in c2^((dof-2)/2).
  double term = 1, sum = 1;
  for (int k = 1; k <= (dof - 2) / 2; ++k) {
    term *= c2 * (2.0 * k - 1) / (2.0 * k);
    sum += term;
  }
  return s * sum;
}

double StudentTTwoSidedQuantile(double level, int dof) {
  double lo = 0, hi = 1;
  while (StudentTCentralProbability(hi, dof) < level && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    if (StudentTCentralProbability(mid, dof) < level) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (lo + hi) / 2;
}

}  // namespace powersweep::modeling
