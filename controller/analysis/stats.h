// Small-sample statistics for comparing two sets of runs: mean, sample
// standard deviation, median, the t-based confidence interval of a mean,
// Student's t distribution for real-valued degrees of freedom, and Welch's
// two-sample t-test with the confidence interval of the difference.
//
// Why Welch's t-test: the two sides of a comparison (e.g. native and
// container runs) have a handful of repetitions each and need not have
// equal variances (a container may add jitter), so the pooled-variance
// Student test does not apply; Welch's test does not assume equal
// variances, and its Welch-Satterthwaite degrees of freedom are fractional,
// which is why this file has its own t distribution for real dof (the
// regularized incomplete beta function by a continued fraction, modified
// Lentz). The test assumes each side is roughly normal; with 3-10 runs per
// side this is the usual choice in benchmarking studies.
//
// Contract:
// - Non-finite input values (NaN, inf) are dropped before anything is
//   computed; empty inputs give zeros. Moments are computed on the values
//   divided by their largest magnitude, so no output is NaN, and every
//   output is finite except WelchTest::t in the zero-variance case
//   documented there (and absolute figures of values within a factor 2 of
//   the largest double, which may overflow to +-inf).
// - Levels are two-sided confidence levels in (0, 1), e.g. 0.95; an
//   out-of-range level is clamped into [1e-12, 1 - 1e-12].
// - Pure functions; thread-safe (no global state; lgamma_r is used).
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_STATS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_STATS_H_

#include <string>
#include <vector>

namespace powersweep::stats {

// Arithmetic mean; 0 for no values.
double Mean(const std::vector<double>& values);

// Sample standard deviation (n - 1 in the denominator); 0 for n < 2.
double SampleSd(const std::vector<double>& values);

// Median (mean of the middle two for an even count); 0 for no values.
double Median(std::vector<double> values);

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x
// in [0, 1] (x outside is clamped; a or b <= 0 gives 0).
double RegularizedIncompleteBeta(double a, double b, double x);

// P(T <= t) for T ~ Student t with `dof` > 0 real degrees of freedom.
// dof <= 0 gives 0.5.
double StudentTCdf(double t, double dof);

// P(|T| >= |t|): the two-sided p-value of a t statistic.
double StudentTTwoSidedP(double t, double dof);

// The t with P(|T| <= t) = level (e.g. level 0.95 gives t_{0.975, dof}),
// by bisection on StudentTTwoSidedP to a relative 1e-12. dof <= 0 gives 0.
double StudentTTwoSidedQuantile(double level, double dof);

// One side of a comparison.
struct SampleSummary {
  int n = 0;
  double mean = 0;
  double sd = 0;
  double median = 0;
  // The t-based interval mean -+ t_{(1+level)/2, n-1} sd / sqrt(n); only
  // when n >= 2 (has_ci false and ci_low = ci_high = mean otherwise).
  bool has_ci = false;
  double ci_low = 0;
  double ci_high = 0;
};

SampleSummary Summarize(const std::vector<double>& values,
                        double level = 0.95);

// Welch's two-sample t-test of `other` against `baseline`, and the
// difference of the means, other - baseline, absolute and in percent of
// the baseline mean.
//
//   se^2 = s_b^2 / n_b + s_o^2 / n_o
//   t    = (mean_o - mean_b) / se
//   dof  = se^4 / ((s_b^2/n_b)^2 / (n_b - 1) + (s_o^2/n_o)^2 / (n_o - 1))
//   p    = P(|T_dof| >= |t|)
//   CI   = (mean_o - mean_b) -+ t_{(1+level)/2, dof} se
//
// The CI in percent is the CI of the difference divided by |baseline
// mean| (the baseline mean is treated as exact: its own uncertainty is
// not propagated).
//
// Edge cases:
// - n < 2 on either side: no test (tested false, note says which side);
//   the difference is still reported when both sides have a value.
// - se = 0, or below 1e-9 of the largest value (zero variance on both
//   sides, up to the rounding noise of deterministic runs such as twins):
//   the test is meaningless, so there is none (tested false, zero_spread
//   true, p = 1, not significant, a note says why); the difference is
//   still reported and its CI is the point.
// - baseline mean 0: no percent (has_percent false).
struct WelchTest {
  bool has_difference = false;  // both sides have at least one value
  double difference = 0;        // mean_o - mean_b
  bool has_percent = false;
  double difference_percent = 0;  // 100 * difference / |mean_b|

  bool tested = false;  // both sides have n >= 2 and some spread
  bool zero_spread = false;  // n >= 2 on both sides but no spread: no test
  double t = 0;
  double dof = 0;
  double p_value = 1;
  bool significant = false;  // p_value < alpha
  double ci_low = 0;         // of the difference, at `level`
  double ci_high = 0;
  double ci_low_percent = 0;  // the same in percent (when has_percent)
  double ci_high_percent = 0;

  std::string note;  // why there is no test or no percent; empty otherwise
};

WelchTest Welch(const std::vector<double>& baseline,
                const std::vector<double>& other, double level = 0.95,
                double alpha = 0.05);

}  // namespace powersweep::stats

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_STATS_H_
