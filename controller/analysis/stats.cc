#include "controller/analysis/stats.h"

#include <math.h>  // lgamma_r (glibc; reentrant, unlike std::lgamma)

#include <algorithm>
#include <cmath>
#include <limits>

namespace powersweep::stats {
namespace {

constexpr double kTiny = 1e-300;        // guards divisions in Lentz's method
constexpr double kFractionEps = 1e-15;  // relative convergence of the fraction
constexpr int kFractionMaxTerms = 1000;

std::vector<double> Finite(const std::vector<double>& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

// Mean and sd computed on values / max|value|, so that neither sums nor
// squares overflow or underflow: `scale` times the scaled figures are the
// real ones (t, dof, p and percentages need only the scaled ones).
struct Moments {
  int n = 0;
  double scale = 0;        // max |value|; 0 when every value is 0
  double scaled_mean = 0;
  double scaled_sd = 0;    // n - 1 in the denominator; 0 for n < 2
  double Mean() const { return scaled_mean * scale; }
  double Sd() const { return scaled_sd * scale; }
};

Moments ScaledMoments(const std::vector<double>& v, double scale = -1) {
  Moments m;
  m.n = static_cast<int>(v.size());
  if (scale < 0) {
    scale = 0;
    for (double x : v) scale = std::max(scale, std::fabs(x));
  }
  m.scale = scale;
  if (v.empty() || scale == 0) return m;
  double sum = 0;
  for (double x : v) sum += x / scale;
  m.scaled_mean = sum / m.n;
  if (m.n < 2) return m;
  double ss = 0;
  for (double x : v) {
    const double d = x / scale - m.scaled_mean;
    ss += d * d;
  }
  m.scaled_sd = std::sqrt(ss / (m.n - 1));
  return m;
}

double LogGamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

double LogBeta(double a, double b) {
  return LogGamma(a) + LogGamma(b) - LogGamma(a + b);
}

// The continued fraction of I_x(a, b) (DLMF 8.17.22):
//   I_x(a, b) = x^a y^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...)))
//   d_{2m}   =  m (b - m) x / ((a + 2m - 1)(a + 2m))
//   d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
// evaluated by the modified Lentz method as b0 + a1/(b1 + a2/(b2 + ...))
// with b0 = 0, every b_j = 1, a_1 = 1 and a_{j+1} = d_j. It converges
// quickly for x < (a + 1) / (a + b + 2).
double BetaFraction(double a, double b, double x) {
  double f = kTiny;
  double c = f;
  double d = 0;
  for (int j = 1; j <= kFractionMaxTerms; ++j) {
    double aj = 1;
    if (j > 1) {
      const int k = j - 1;  // index of d_k
      if (k % 2 == 0) {
        const double m = k / 2;
        aj = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      } else {
        const double m = (k - 1) / 2;
        aj = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      }
    }
    d = 1 + aj * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aj / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1) < kFractionEps) break;
  }
  return f;
}

// I_x(a, b) given x and y = 1 - x separately, so that a tail computed as a
// small y keeps its precision.
double IncompleteBeta(double a, double b, double x, double y) {
  if (!(a > 0) || !(b > 0)) return 0;
  if (!(x > 0)) return 0;
  if (!(y > 0)) return 1;
  const double log_front = a * std::log(x) + b * std::log(y) - LogBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) {
    return std::exp(log_front) * BetaFraction(a, b, x) / a;
  }
  return 1 - std::exp(log_front) * BetaFraction(b, a, y) / b;
}

double ClampLevel(double level) {
  if (!(level >= 1e-12)) return 1e-12;  // also catches NaN
  return std::min(level, 1 - 1e-12);
}

}  // namespace

double Mean(const std::vector<double>& values) {
  return ScaledMoments(Finite(values)).Mean();
}

double SampleSd(const std::vector<double>& values) {
  return ScaledMoments(Finite(values)).Sd();
}

double Median(std::vector<double> values) {
  std::vector<double> v = Finite(values);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  if (v.size() % 2 == 1) return v[mid];
  return 0.5 * v[mid - 1] + 0.5 * v[mid];  // no overflow near DBL_MAX
}

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (std::isnan(x)) return 0;
  x = std::clamp(x, 0.0, 1.0);
  return IncompleteBeta(a, b, x, 1 - x);
}

double StudentTTwoSidedP(double t, double dof) {
  if (!(dof > 0) || std::isnan(t)) return 1;
  if (std::isinf(t)) return 0;
  const double t2 = t * t;
  if (t2 == 0) return 1;
  if (std::isinf(t2)) return 0;
  // P(|T| >= |t|) = I_x(dof / 2, 1 / 2) with x = dof / (dof + t^2).
  const double denom = dof + t2;
  return std::clamp(IncompleteBeta(dof / 2, 0.5, dof / denom, t2 / denom),
                    0.0, 1.0);
}

double StudentTCdf(double t, double dof) {
  if (!(dof > 0) || std::isnan(t)) return 0.5;
  const double half_tail = 0.5 * StudentTTwoSidedP(t, dof);
  return t >= 0 ? 1 - half_tail : half_tail;
}

double StudentTTwoSidedQuantile(double level, double dof) {
  if (!(dof > 0)) return 0;
  const double tail = 1 - ClampLevel(level);
  double lo = 0, hi = 1;
  // StudentTTwoSidedP falls from 1 (t = 0) to 0; bracket the target.
  for (int i = 0; i < 2000 && StudentTTwoSidedP(hi, dof) > tail; ++i) {
    lo = hi;
    hi *= 2;
  }
  for (int i = 0; i < 400 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (StudentTTwoSidedP(mid, dof) > tail) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

SampleSummary Summarize(const std::vector<double>& values, double level) {
  const std::vector<double> v = Finite(values);
  const Moments m = ScaledMoments(v);
  SampleSummary s;
  s.n = m.n;
  s.mean = m.Mean();
  s.sd = m.Sd();
  s.median = Median(v);
  s.ci_low = s.ci_high = s.mean;
  if (s.n >= 2) {
    const double half = StudentTTwoSidedQuantile(level, s.n - 1) *
                        m.scaled_sd / std::sqrt(static_cast<double>(s.n));
    s.has_ci = true;
    s.ci_low = (m.scaled_mean - half) * m.scale;
    s.ci_high = (m.scaled_mean + half) * m.scale;
  }
  return s;
}

WelchTest Welch(const std::vector<double>& baseline,
                const std::vector<double>& other, double level,
                double alpha) {
  const std::vector<double> bv = Finite(baseline);
  const std::vector<double> ov = Finite(other);
  // Both sides on one scale, so that their scaled figures compare.
  double scale = 0;
  for (double x : bv) scale = std::max(scale, std::fabs(x));
  for (double x : ov) scale = std::max(scale, std::fabs(x));
  const Moments b = ScaledMoments(bv, scale);
  const Moments o = ScaledMoments(ov, scale);
  WelchTest w;
  if (b.n == 0 || o.n == 0) {
    w.note = b.n == 0 ? "no values on the baseline side"
                      : "no values on the other side";
    return w;
  }
  // Figures in scaled units (suffix _s) until the end.
  const double diff_s = o.scaled_mean - b.scaled_mean;
  double ci_low_s = diff_s, ci_high_s = diff_s;
  w.has_difference = true;
  const double base_s = std::fabs(b.scaled_mean);
  if (base_s > 0) {
    w.has_percent = true;
    w.difference_percent = 100 * diff_s / base_s;
  } else {
    w.note = "baseline mean is 0: no difference in percent";
  }
  if (b.n < 2 || o.n < 2) {
    const std::string side = b.n < 2 ? "baseline" : "other";
    w.note = "fewer than 2 values on the " + side + " side: no test";
  } else {
    const double vb = b.scaled_sd * b.scaled_sd / b.n;
    const double vo = o.scaled_sd * o.scaled_sd / o.n;
    const double se = std::sqrt(vb + vo);
    // Values are scaled to a largest magnitude of 1: a standard error
    // below this is rounding noise (deterministic runs, e.g. twins).
    constexpr double kRoundingSe = 1e-9;
    if (se > kRoundingSe) {
      w.tested = true;
      w.t = diff_s / se;
      w.dof = (vb + vo) * (vb + vo) /
              (vb * vb / (b.n - 1) + vo * vo / (o.n - 1));
      w.p_value = StudentTTwoSidedP(w.t, w.dof);
      const double half = StudentTTwoSidedQuantile(level, w.dof) * se;
      ci_low_s = diff_s - half;
      ci_high_s = diff_s + half;
      w.significant = w.p_value < alpha;
    } else {
      // No spread on either side: nothing to weigh the difference against.
      w.zero_spread = true;
      w.note = "no spread on either side (deterministic runs, e.g. twins): "
               "the t-test is not meaningful, so no p-value";
    }
  }
  w.difference = diff_s * scale;
  w.ci_low = ci_low_s * scale;
  w.ci_high = ci_high_s * scale;
  if (w.has_percent) {
    w.ci_low_percent = 100 * ci_low_s / base_s;
    w.ci_high_percent = 100 * ci_high_s / base_s;
  }
  return w;
}

}  // namespace powersweep::stats
