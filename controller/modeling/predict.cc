#include "controller/modeling/predict.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "controller/modeling/student_t.h"

namespace powersweep::modeling {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// d value / d parameters at x (features for linear forms).
std::vector<double> Gradient(const ModelForm& form, const FittedModel& m,
                             const ScaledMode& x, const TimeEstimate& te) {
  const size_t p = m.coefficients.size();
  std::vector<double> g(p);
  if (form.linear()) {
    form.Features(m.knobs, x, te, g.data());
    return g;
  }
  std::vector<double> params = m.coefficients;
  for (size_t k = 0; k < p; ++k) {
    const double h = 1e-6 * std::max(std::abs(params[k]), 1e-9);
    const double saved = params[k];
    params[k] = saved + h;
    const double up = form.Evaluate(m.knobs, x, te, params.data());
    params[k] = saved - h;
    const double down = form.Evaluate(m.knobs, x, te, params.data());
    params[k] = saved;
    g[k] = (up - down) / (2 * h);
  }
  return g;
}

// Relative half-width of the interval of `m` at x whose value is y.
double RelativeHalfWidth(const ModelForm& form, const FittedModel& m,
                         const ScaledMode& x, const TimeEstimate& te,
                         double y, double quantile) {
  if (quantile <= 0 || y == 0) return kNaN;
  const std::vector<double> g = Gradient(form, m, x, te);
  const size_t p = g.size();
  double h = 0;
  for (size_t i = 0; i < p; ++i) {
    for (size_t j = 0; j < p; ++j) {
      h += g[i] / y * m.covariance[i * p + j] * g[j] / y;
    }
  }
  return quantile * m.residual_std * std::sqrt(1 + std::max(0.0, h));
}

// 0 (no interval) without residual degrees of freedom or a covariance.
double Quantile(const FittedModel& m, double level) {
  const size_t p = m.coefficients.size();
  if (m.residual_dof <= 0 || m.covariance.size() != p * p) return 0;
  return StudentTTwoSidedQuantile(level, m.residual_dof);
}

}  // namespace

std::vector<ModePoint> ToPoints(const std::vector<ModePrediction>& preds,
                                Bound bound) {
  std::vector<ModePoint> out;
  out.reserve(preds.size());
  for (const ModePrediction& p : preds) {
    if (bound == Bound::kUpper && p.has_interval) {
      out.push_back(ModePoint{p.mode, p.time_hi_s, p.energy_hi_j, p.power_hi_w});
    } else {
      out.push_back(ModePoint{p.mode, p.time_s, p.energy_j, p.power_w});
    }
  }
  return out;
}

Predictor::Predictor(FittedModel time, std::optional<FittedModel> energy,
                     double level)
    : time_(std::move(time)), energy_(std::move(energy)), level_(level) {
  time_quantile_ = Quantile(time_, level_);
  if (energy_) energy_quantile_ = Quantile(*energy_, level_);
}

absl::StatusOr<Predictor> Predictor::Create(FittedModel time,
                                            std::optional<FittedModel> energy,
                                            double level) {
  if (!(level > 0 && level < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("interval level must be in (0, 1), got ", level));
  }
  if (absl::Status s = CheckFittedModel(time, Target::kTime); !s.ok()) {
    return s;
  }
  if (energy) {
    if (absl::Status s = CheckFittedModel(*energy, Target::kEnergy); !s.ok()) {
      return s;
    }
    if (energy->time_form != time.form) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the energy model was fitted with a time model of form ",
          energy->time_form, ", not ", time.form));
    }
  }
  return Predictor(std::move(time), std::move(energy), level);
}

ModePrediction Predictor::PredictUnchecked(const CustomMode& mode) const {
  const ModelForm& tf = *FindForm(time_.form);
  const ScaledMode x = Scale(mode);
  ModePrediction p;
  p.mode = mode;
  TimeEstimate te;
  te.time_s = tf.Evaluate(time_.knobs, x, TimeEstimate{},
                          time_.coefficients.data());
  tf.BusyShares(time_.knobs, x, time_.coefficients.data(), &te);
  p.time_s = te.time_s;
  // Raw half-widths, then each model's calibration (interval_scale); an
  // energy model's was calibrated on the combined energy half-width.
  const double time_raw = RelativeHalfWidth(tf, time_, x, TimeEstimate{},
                                            te.time_s, time_quantile_);
  const double time_half = time_raw * time_.interval_scale;
  double energy_half = 0;
  double power_half = 0;
  if (energy_) {
    const ModelForm& ef = *FindForm(energy_->form);
    const double v =
        ef.Evaluate(energy_->knobs, x, te, energy_->coefficients.data());
    const double half =
        RelativeHalfWidth(ef, *energy_, x, te, v, energy_quantile_);
    p.has_energy = true;
    const double scale = energy_->interval_scale;
    if (ef.models_power()) {
      p.energy_j = v * te.time_s;
      energy_half = scale * std::hypot(half, time_raw);
    } else {
      p.energy_j = v;
      energy_half = scale * half;
    }
    power_half = scale * half;
    p.power_w = te.time_s > 0 ? p.energy_j / te.time_s : 0;
  }
  p.has_interval = std::isfinite(time_half) && std::isfinite(energy_half);
  if (p.has_interval) {
    p.time_lo_s = std::max(0.0, p.time_s * (1 - time_half));
    p.time_hi_s = p.time_s * (1 + time_half);
    p.energy_lo_j = std::max(0.0, p.energy_j * (1 - energy_half));
    p.energy_hi_j = p.energy_j * (1 + energy_half);
    p.power_lo_w = std::max(0.0, p.power_w * (1 - power_half));
    p.power_hi_w = p.power_w * (1 + power_half);
  } else {
    p.time_lo_s = p.time_hi_s = p.energy_lo_j = p.energy_hi_j = kNaN;
    p.power_lo_w = p.power_hi_w = kNaN;
  }
  return p;
}

absl::StatusOr<ModePrediction> Predictor::Predict(
    const CustomMode& mode) const {
  if (absl::Status s = CheckModeForKnobs(mode, time_.knobs); !s.ok()) {
    return s;
  }
  if (energy_) {
    if (absl::Status s = CheckModeForKnobs(mode, energy_->knobs); !s.ok()) {
      return s;
    }
  }
  return PredictUnchecked(mode);
}

absl::StatusOr<std::vector<ModePrediction>> Predictor::PredictSpace(
    const ModeSpace& space) const {
  if (space.Size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the mode space of ", space.spec().name, " is empty"));
  }
  // Every mode of a space sets the same knobs: checking one checks all.
  PS_ASSIGN_OR_RETURN(CustomMode first, space.At(0));
  if (absl::StatusOr<ModePrediction> p = Predict(first); !p.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot predict the modes of ", space.spec().name, ": ",
                     p.status().message()));
  }
  std::vector<ModePrediction> out;
  out.reserve(space.Size());
  space.ForEach([&](const CustomMode& m) {
    out.push_back(PredictUnchecked(m));
    return true;
  });
  return out;
}

}  // namespace powersweep::modeling
