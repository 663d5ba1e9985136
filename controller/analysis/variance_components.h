// How much groups of repeated measurements differ: one-way random-effects
// analysis of variance, for the device-instance variability study (one
// group per device, its runs the repeated measurements; variability.h).
//
// Input: k groups of values (group i has n_i finite values; unbalanced
// is fine). N = sum n_i, m_i the mean of group i, m the grand mean (of all
// N values).
//
//   SS_between = sum_i n_i (m_i - m)^2        df_between = k - 1
//   SS_within  = sum_i sum_j (x_ij - m_i)^2   df_within  = N - k
//   MS_between = SS_between / df_between      MS_within  = SS_within / df_within
//   F = MS_between / MS_within
//   p = P(F_{df_between, df_within} >= F)
//     = I_x(df_within / 2, df_between / 2), x = df_within / (df_within + df_between F)
//
// Variance components (the ANOVA, or method-of-moments, estimators):
//
//   n0          = (N - sum_i n_i^2 / N) / (k - 1)   (= n when balanced)
//   var_within  = MS_within
//   var_between = max(0, (MS_between - MS_within) / n0)
//   ICC(1)      = var_between / (var_between + var_within)
//
// ICC(1) is the share of the variance of one measurement that is due to the
// device: 0 = the devices are interchangeable, 1 = all the spread is
// between devices. (For balanced data it equals Shrout & Fleiss's
// ICC(1,1) = (MS_b - MS_w) / (MS_b + (n - 1) MS_w) when MS_b >= MS_w.)
//
// Across the group means (each device counts once, whatever its n):
//
//   CV      = SD(m_1..m_k) / |mean(m_1..m_k)|   (sample SD, k - 1)
//   max/min = max_i m_i / min_i m_i             (only when every m_i > 0)
//
// Outliers, leave-one-out (k >= 3): group i is an outlier when its mean
// lies outside the 95% prediction interval for one more group mean drawn
// like the other k - 1:
//
//   mo, so = mean and sample SD of the other groups' means
//   mo -+ t_{0.975, k-2} so sqrt(1 + 1/(k - 1))
//
// With k = 3 the interval rests on 2 means and t_{0.975,1} = 12.7, so only a
// gross outlier shows; with 4 devices t_{0.975,2} = 4.30.
//
// Edge cases (each leaves the figures it cannot give unset, has_* false,
// and says why in `notes`):
// - Non-finite values (NaN, inf) are dropped first; a group left empty is
//   not counted in k (its GroupFigures have n = 0).
// - k < 2: no analysis at all beyond the group figures.
// - N = k (every group has n = 1, df_within = 0): no within variance, so
//   no F test, no components, no ICC; the CV, max/min and outliers on the
//   means still are.
// - A group with n = 1 adds to the between part only (its within-group sum
//   of squares is 0 on 0 degrees of freedom).
// - Zero within variance (MS_within = 0, or a within-device SD below 1e-9
//   of the largest value: rounding noise of deterministic runs such as
//   twins, taken as 0): the F test is meaningless, so has_f_test is false
//   and a note says so; F = +infinity and p = 0 are kept in the struct when
//   the means differ (ICC = 1), F = 0 and p = 1 and no ICC when every
//   value is equal. F is the only output that can be non-finite.
// - Mean of the means 0: no CV. Any mean <= 0: no max/min.
// - The other means all equal (so = 0): the interval is that one point,
//   and any group whose mean differs is an outlier.
// Sums are taken on the values divided by their largest magnitude (as in
// stats.h), so F, p, ICC, CV, max/min and the SDs are right for any finite
// input; sums of squares, mean squares and variances (squares of the
// input's unit) overflow to +infinity for values beyond about 1e154.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_VARIANCE_COMPONENTS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_VARIANCE_COMPONENTS_H_

#include <string>
#include <vector>

namespace powersweep::stats {

// P(F >= f) for F ~ Fisher's F with d1, d2 > 0 real degrees of freedom.
// f <= 0 (or NaN) gives 1; f = +infinity gives 0; d1 or d2 <= 0 gives 1.
double FUpperTail(double f, double d1, double d2);

// One group's figures; in the order the groups were given.
struct GroupFigures {
  int n = 0;        // finite values
  double mean = 0;  // 0 when n = 0
  double sd = 0;    // sample SD; 0 for n < 2

  // Leave-one-out check (k >= 3 and n >= 1).
  bool checked = false;
  double others_mean = 0;  // mean of the other groups' means
  double pi_low = 0;       // the prediction interval from the others
  double pi_high = 0;
  bool has_deviation = false;   // others_mean != 0
  double deviation_percent = 0; // 100 (mean - others_mean) / |others_mean|
  bool outlier = false;
};

struct OneWayAnova {
  std::vector<GroupFigures> groups;  // one per input group
  int k = 0;                         // groups with n >= 1
  int n_total = 0;                   // N
  double grand_mean = 0;

  bool has_anova = false;  // k >= 2 and N > k
  double ss_between = 0;
  double ss_within = 0;
  int df_between = 0;
  int df_within = 0;
  double ms_between = 0;
  double ms_within = 0;
  double f = 0;
  double p_value = 1;
  // has_anova and a within-device spread above rounding noise: only then
  // do F and p mean anything (show them only when true).
  bool has_f_test = false;

  bool has_components = false;  // = has_anova
  double n0 = 0;
  double var_between = 0;
  double var_within = 0;
  double sd_between = 0;
  double sd_within = 0;
  bool has_icc = false;  // has_components and var_between + var_within > 0
  double icc = 0;

  bool has_means_spread = false;  // k >= 2
  double mean_of_means = 0;
  double sd_of_means = 0;
  bool has_cv = false;
  double cv = 0;  // a fraction: 0.05 = 5%
  bool has_max_min = false;
  double max_min_ratio = 0;

  int outlier_count = 0;  // groups with outlier set
  std::vector<std::string> notes;  // why figures are missing
};

// `level` is the prediction level of the outlier check (0.95: t_{0.975}).
OneWayAnova OneWayRandomEffects(const std::vector<std::vector<double>>& groups,
                                double level = 0.95);

}  // namespace powersweep::stats

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_VARIANCE_COMPONENTS_H_
