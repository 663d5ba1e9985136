#include "controller/modeling/model_proto.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep::modeling {
namespace {

std::vector<std::string> KnobNames(const ActiveKnobs& k) {
  std::vector<std::string> names;
  if (k.cores) names.push_back("cpu_cores");
  if (k.cpu_freq) names.push_back("cpu_freq_khz");
  if (k.gpu_freq) names.push_back("gpu_freq_hz");
  if (k.mem_freq) names.push_back("mem_freq_hz");
  return names;
}

// 0 for NaN (a bound without an interval).
double Finite(double x) { return std::isfinite(x) ? x : 0; }

}  // namespace

v1::PowerMode ToPowerMode(const CustomMode& mode) {
  v1::PowerMode p;
  p.set_cpu_cores(mode.cpu_cores);
  p.set_cpu_freq_khz(mode.cpu_freq_khz);
  p.set_gpu_freq_hz(mode.gpu_freq_hz);
  p.set_mem_freq_hz(mode.mem_freq_hz);
  return p;
}

CustomMode KnobsOf(const v1::PowerMode& mode) {
  return CustomMode{mode.cpu_cores(), mode.cpu_freq_khz(), mode.gpu_freq_hz(),
                    mode.mem_freq_hz()};
}

v1::FittedModelData ToProto(const ModelSelection& selection) {
  const FittedModel& m = selection.model;
  v1::FittedModelData d;
  d.set_target(m.target == Target::kTime ? "time" : "energy");
  d.set_form(m.form);
  d.set_time_form(m.time_form);
  for (const std::string& k : KnobNames(m.knobs)) d.add_active_knobs(k);
  for (const std::string& n : m.parameter_names) d.add_parameter_names(n);
  for (double c : m.coefficients) d.add_coefficients(c);
  for (double c : m.covariance) d.add_covariance(Finite(c));
  for (const CustomMode& t : m.training_modes) {
    *d.add_training_modes() = ToPowerMode(t);
  }
  d.set_observations(m.observations);
  d.set_residual_dof(m.residual_dof);
  d.set_residual_std(m.residual_std);
  d.set_in_sample_mape_pct(m.in_sample_mape_pct);
  d.set_cv_mape_pct(selection.cv.mape_pct);
  d.set_cv_median_ape_pct(selection.cv.median_ape_pct);
  for (const HeldOutMode& h : selection.cv.held_out) {
    v1::HeldOutModeError* e = d.add_held_out();
    *e->mutable_mode() = ToPowerMode(h.mode);
    e->set_observations(h.observations);
    e->set_observed(h.observed);
    e->set_predicted(h.predicted);
    e->set_ape_pct(h.ape_pct);
    e->set_has_interval(h.has_interval);
    e->set_lo(Finite(h.lo));
    e->set_hi(Finite(h.hi));
    e->set_covered(h.covered);
  }
  d.set_interval_held_out(selection.cv.interval_held_out);
  d.set_interval_covered(selection.cv.interval_covered);
  d.set_prior_weight(m.prior_weight);
  d.set_reference_scale(m.reference_scale);
  d.set_interval_scale(m.interval_scale);
  for (const FormCandidate& c : selection.candidates) {
    v1::ModelFormCandidate* out = d.add_candidates();
    out->set_form(c.form);
    out->set_coefficients(c.coefficients);
    out->set_cross_validated(c.cross_validated);
    out->set_cv_mape_pct(c.cv_mape_pct);
    out->set_cv_median_ape_pct(c.cv_median_ape_pct);
    out->set_reason(c.reason);
    // The chosen candidate's cross-validation carries its label (a form,
    // or "FORM (transfer, weight W)", transfer.h).
    out->set_chosen(c.form == selection.cv.form);
  }
  return d;
}

absl::StatusOr<FittedModel> FromProto(const v1::FittedModelData& d) {
  FittedModel m;
  if (d.target() == "time") {
    m.target = Target::kTime;
  } else if (d.target() == "energy") {
    m.target = Target::kEnergy;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "stored model: target must be time or energy, got '", d.target(), "'"));
  }
  m.form = d.form();
  m.time_form = d.time_form();
  for (const std::string& k : d.active_knobs()) {
    if (k == "cpu_cores") {
      m.knobs.cores = true;
    } else if (k == "cpu_freq_khz") {
      m.knobs.cpu_freq = true;
    } else if (k == "gpu_freq_hz") {
      m.knobs.gpu_freq = true;
    } else if (k == "mem_freq_hz") {
      m.knobs.mem_freq = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("stored model: unknown active knob '", k, "'"));
    }
  }
  m.parameter_names.assign(d.parameter_names().begin(),
                           d.parameter_names().end());
  m.coefficients.assign(d.coefficients().begin(), d.coefficients().end());
  m.covariance.assign(d.covariance().begin(), d.covariance().end());
  for (const v1::PowerMode& t : d.training_modes()) {
    m.training_modes.push_back(KnobsOf(t));
  }
  m.observations = d.observations();
  m.residual_dof = d.residual_dof();
  m.residual_std = d.residual_std();
  m.in_sample_mape_pct = d.in_sample_mape_pct();
  m.prior_weight = d.prior_weight();
  m.reference_scale = d.reference_scale();
  m.interval_scale = d.interval_scale() > 0 ? d.interval_scale() : 1;
  if (absl::Status s = CheckFittedModel(m, m.target); !s.ok()) return s;
  return m;
}

v1::ModeSpaceData ToProto(const ModeSpace& space) {
  v1::ModeSpaceData d;
  d.set_cpu_cores(space.cores());
  for (int64_t f : space.spec().cpu_freqs_khz) d.add_cpu_freqs_khz(f);
  for (int64_t f : space.spec().gpu_freqs_hz) d.add_gpu_freqs_hz(f);
  for (int64_t f : space.spec().mem_freqs_hz) d.add_mem_freqs_hz(f);
  d.set_size(space.Size());
  return d;
}

ModeSpace ToModeSpace(const std::string& device_class,
                      const v1::ModeSpaceData& d) {
  DeviceClassSpec spec;
  spec.name = device_class;
  spec.cpu_cores = d.cpu_cores();
  spec.cpu_freqs_khz.assign(d.cpu_freqs_khz().begin(), d.cpu_freqs_khz().end());
  spec.gpu_freqs_hz.assign(d.gpu_freqs_hz().begin(), d.gpu_freqs_hz().end());
  spec.mem_freqs_hz.assign(d.mem_freqs_hz().begin(), d.mem_freqs_hz().end());
  return ModeSpace(std::move(spec));
}

v1::ModePrediction ToProto(const ModePrediction& p, double level) {
  v1::ModePrediction out;
  *out.mutable_mode() = ToPowerMode(p.mode);
  out.set_epoch_time_s(p.time_s);
  out.set_has_energy(p.has_energy);
  if (p.has_energy) {
    out.set_epoch_energy_j(p.energy_j);
    out.set_power_w(p.power_w);
  }
  out.set_has_interval(p.has_interval);
  if (p.has_interval) {
    out.set_interval_level(level);
    out.set_epoch_time_lo_s(Finite(p.time_lo_s));
    out.set_epoch_time_hi_s(Finite(p.time_hi_s));
    if (p.has_energy) {
      out.set_epoch_energy_lo_j(Finite(p.energy_lo_j));
      out.set_epoch_energy_hi_j(Finite(p.energy_hi_j));
      out.set_power_lo_w(Finite(p.power_lo_w));
      out.set_power_hi_w(Finite(p.power_hi_w));
    }
  }
  return out;
}

}  // namespace powersweep::modeling
