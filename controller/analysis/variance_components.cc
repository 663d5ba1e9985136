#include "controller/analysis/variance_components.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "controller/analysis/stats.h"

namespace powersweep::stats {
namespace {

// Mean with one correction pass: equal values give exactly that value, so
// a group of identical measurements has a within sum of squares of 0.
double CorrectedMean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  const double first = sum / v.size();
  double residual = 0;
  for (double x : v) residual += x - first;
  return first + residual / v.size();
}

double SumSquares(const std::vector<double>& v, double mean) {
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss;
}

// The finite values of each group divided by `scale` (the largest
// magnitude over all groups; 1 when every value is 0).
std::vector<std::vector<double>> ScaledFinite(
    const std::vector<std::vector<double>>& groups, double* scale) {
  double s = 0;
  for (const auto& g : groups) {
    for (double x : g) {
      if (std::isfinite(x)) s = std::max(s, std::fabs(x));
    }
  }
  if (s == 0) s = 1;
  std::vector<std::vector<double>> out(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    for (double x : groups[i]) {
      if (std::isfinite(x)) out[i].push_back(x / s);
    }
  }
  *scale = s;
  return out;
}

// Mean and sample SD (k - 1) of `means`; sd 0 for fewer than 2.
void MeanSd(const std::vector<double>& means, double* mean, double* sd) {
  *mean = CorrectedMean(means);
  *sd = means.size() < 2
            ? 0
            : std::sqrt(SumSquares(means, *mean) / (means.size() - 1));
}

// Leave-one-out prediction intervals over the scaled means of the groups
// with values (`index` maps them to result->groups).
void CheckOutliers(const std::vector<double>& means,
                   const std::vector<size_t>& index, double scale,
                   double level, OneWayAnova* result) {
  const int k = static_cast<int>(means.size());
  if (k < 3) {
    if (k == 2) {
      result->notes.push_back(
          "2 devices: no outlier check (it needs at least 3)");
    }
    return;
  }
  const double t = StudentTTwoSidedQuantile(level, k - 2);
  const double widen = std::sqrt(1 + 1.0 / (k - 1));
  for (int i = 0; i < k; ++i) {
    std::vector<double> others;
    for (int j = 0; j < k; ++j) {
      if (j != i) others.push_back(means[j]);
    }
    double mo = 0, so = 0;
    MeanSd(others, &mo, &so);
    const double half = t * so * widen;
    GroupFigures& g = result->groups[index[i]];
    g.checked = true;
    g.others_mean = mo * scale;
    g.pi_low = (mo - half) * scale;
    g.pi_high = (mo + half) * scale;
    if (mo != 0) {
      g.has_deviation = true;
      g.deviation_percent = 100 * (means[i] - mo) / std::fabs(mo);
    }
    g.outlier = std::fabs(means[i] - mo) > half;
    if (g.outlier) ++result->outlier_count;
  }
}

void SpreadOfMeans(const std::vector<double>& means, double scale,
                   OneWayAnova* r) {
  r->has_means_spread = true;
  double mean = 0, sd = 0;
  MeanSd(means, &mean, &sd);
  r->mean_of_means = mean * scale;
  r->sd_of_means = sd * scale;
  if (mean != 0) {
    r->has_cv = true;
    r->cv = sd / std::fabs(mean);
  } else {
    r->notes.push_back("the mean of the device means is 0: no CV");
  }
  const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
  if (*lo > 0) {
    r->has_max_min = true;
    r->max_min_ratio = *hi / *lo;
  } else {
    r->notes.push_back("a device mean is not positive: no max/min ratio");
  }
}

}  // namespace

double FUpperTail(double f, double d1, double d2) {
  if (!(d1 > 0) || !(d2 > 0) || !(f > 0)) return 1;
  if (std::isinf(f)) return 0;
  const double denom = d2 + d1 * f;
  // x = d2 / (d2 + d1 f); the tail is I_x(d2/2, d1/2).
  return std::clamp(RegularizedIncompleteBeta(d2 / 2, d1 / 2, d2 / denom), 0.0,
                    1.0);
}

OneWayAnova OneWayRandomEffects(const std::vector<std::vector<double>>& groups,
                                double level) {
  OneWayAnova r;
  double scale = 1;
  const std::vector<std::vector<double>> v = ScaledFinite(groups, &scale);
  r.groups.resize(v.size());
  std::vector<double> means;   // scaled, groups with values only
  std::vector<size_t> index;   // into r.groups
  std::vector<double> all;
  for (size_t i = 0; i < v.size(); ++i) {
    GroupFigures& g = r.groups[i];
    g.n = static_cast<int>(v[i].size());
    if (g.n == 0) continue;
    const double m = CorrectedMean(v[i]);
    g.mean = m * scale;
    if (g.n >= 2) g.sd = std::sqrt(SumSquares(v[i], m) / (g.n - 1)) * scale;
    means.push_back(m);
    index.push_back(i);
    all.insert(all.end(), v[i].begin(), v[i].end());
  }
  r.k = static_cast<int>(means.size());
  r.n_total = static_cast<int>(all.size());
  const double grand = CorrectedMean(all);
  r.grand_mean = grand * scale;
  if (r.k < 2) {
    r.notes.push_back(absl::StrCat(
        r.k, " device", r.k == 1 ? "" : "s",
        " with values: no comparison across devices (it needs at least 2)"));
    return r;
  }
  SpreadOfMeans(means, scale, &r);
  CheckOutliers(means, index, scale, level, &r);
  if (r.n_total == r.k) {
    r.notes.push_back(
        "every device has 1 run: no within-device variance, so no F test, "
        "variance components or ICC");
    return r;
  }

  double ss_b = 0, ss_w = 0, sum_n2 = 0;
  for (size_t i = 0; i < means.size(); ++i) {
    const int n = r.groups[index[i]].n;
    ss_b += n * (means[i] - grand) * (means[i] - grand);
    ss_w += SumSquares(v[index[i]], means[i]);
    sum_n2 += static_cast<double>(n) * n;
  }
  // The values are scaled to a largest magnitude of 1: a within-device SD
  // below this is rounding noise (deterministic runs, e.g. twins), not a
  // spread a test could weigh the devices' differences against.
  constexpr double kRoundingSd = 1e-9;
  if (ss_w / (r.n_total - r.k) <= kRoundingSd * kRoundingSd) ss_w = 0;
  const double s2 = scale * scale;
  r.has_anova = true;
  r.df_between = r.k - 1;
  r.df_within = r.n_total - r.k;
  r.ss_between = ss_b * s2;
  r.ss_within = ss_w * s2;
  const double msb = ss_b / r.df_between;
  const double msw = ss_w / r.df_within;
  r.ms_between = msb * s2;
  r.ms_within = msw * s2;
  if (msw > 0) {
    r.f = msb / msw;
    r.p_value = FUpperTail(r.f, r.df_between, r.df_within);
    r.has_f_test = true;
  } else if (msb > 0) {
    r.f = std::numeric_limits<double>::infinity();
    r.p_value = 0;
    r.notes.push_back(
        "no variation within any device (deterministic runs, e.g. twins): "
        "the F test is meaningless, so no p-value");
  } else {
    r.f = 0;
    r.p_value = 1;
    r.notes.push_back(
        "every value is equal: no variation at all, so no F test");
  }

  r.has_components = true;
  r.n0 = (r.n_total - sum_n2 / r.n_total) / (r.k - 1);
  const double vb = std::max(0.0, (msb - msw) / r.n0);
  r.var_between = vb * s2;
  r.var_within = r.ms_within;
  r.sd_between = std::sqrt(vb) * scale;
  r.sd_within = std::sqrt(msw) * scale;
  if (vb + msw > 0) {
    r.has_icc = true;
    r.icc = vb / (vb + msw);
  }
  return r;
}

}  // namespace powersweep::stats
