// Quantiles of Student's t distribution, for prediction intervals.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_STUDENT_T_H_
#define POWERSWEEP_CONTROLLER_MODELING_STUDENT_T_H_

namespace powersweep::modeling {

// P(|T| <= t) for T ~ Student t with `dof` >= 1 degrees of freedom (the
// closed-form series for integer dof, Abramowitz & Stegun 26.7.3-4).
double StudentTCentralProbability(double t, int dof);

// The t with P(|T| <= t) = level (two-sided), level in (0, 1), dof >= 1
// (bisection on the function above, to 1e-10).
double StudentTTwoSidedQuantile(double level, int dof);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_STUDENT_T_H_
