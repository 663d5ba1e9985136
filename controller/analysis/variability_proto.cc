#include "controller/analysis/variability_proto.h"

namespace powersweep {
namespace {

void FillDevice(const DeviceVariability& d, v1::VariabilityDeviceStats* out) {
  out->set_device_id(d.device_id);
  for (int64_t id : d.run_ids) out->add_run_ids(id);
  out->set_n(d.summary.n);
  out->set_mean(d.summary.mean);
  out->set_sd(d.summary.sd);
  out->set_has_ci(d.summary.has_ci);
  out->set_ci_low(d.summary.ci_low);
  out->set_ci_high(d.summary.ci_high);
  out->set_has_start_temp(d.has_start_temp);
  out->set_mean_start_temp_c(d.mean_start_temp_c);
  const stats::GroupFigures& g = d.figures;
  out->set_checked(g.checked);
  out->set_others_mean(g.others_mean);
  out->set_interval_low(g.pi_low);
  out->set_interval_high(g.pi_high);
  out->set_has_deviation(g.has_deviation);
  out->set_deviation_percent(g.deviation_percent);
  out->set_outlier(g.outlier);
}

void FillAcross(const MetricVariability& m,
                v1::VariabilityAcrossDevices* out) {
  const stats::OneWayAnova& a = m.across;
  out->set_devices(a.k);
  out->set_runs(a.n_total);
  out->set_grand_mean(a.grand_mean);
  out->set_has_anova(a.has_anova);
  out->set_ss_between(a.ss_between);
  out->set_ss_within(a.ss_within);
  out->set_df_between(a.df_between);
  out->set_df_within(a.df_within);
  out->set_ms_between(a.ms_between);
  out->set_ms_within(a.ms_within);
  out->set_f(a.f);
  out->set_p_value(a.p_value);
  out->set_has_f_test(a.has_f_test);
  out->set_n0(a.n0);
  out->set_var_between(a.var_between);
  out->set_var_within(a.var_within);
  out->set_sd_between(a.sd_between);
  out->set_sd_within(a.sd_within);
  out->set_has_icc(a.has_icc);
  out->set_icc(a.icc);
  out->set_has_means_spread(a.has_means_spread);
  out->set_mean_of_means(a.mean_of_means);
  out->set_sd_of_means(a.sd_of_means);
  out->set_has_cv(a.has_cv);
  out->set_cv_percent(100 * a.cv);
  out->set_has_max_min(a.has_max_min);
  out->set_max_min_ratio(a.max_min_ratio);
  for (const std::string& d : m.outlier_devices) out->add_outlier_devices(d);
  for (const std::string& n : a.notes) out->add_notes(n);
}

}  // namespace

v1::VariabilityResponse ToVariabilityResponse(int64_t sweep_id,
                                              const VariabilityReport& report) {
  v1::VariabilityResponse out;
  out.set_sweep_id(sweep_id);
  for (const CellVariability& cell : report.cells) {
    v1::VariabilityCell* c = out.add_cells();
    c->set_label(cell.label);
    *c->mutable_key() = cell.key;
    for (const std::string& d : cell.device_ids) c->add_device_ids(d);
    for (int64_t id : cell.run_ids) c->add_run_ids(id);
    for (const MetricVariability& m : cell.metrics) {
      v1::VariabilityMetricReport* r = c->add_metrics();
      r->set_name(m.info.name);
      r->set_label(m.info.label);
      r->set_unit(m.info.unit);
      for (const DeviceVariability& d : m.devices) FillDevice(d, r->add_devices());
      FillAcross(m, r->mutable_across());
    }
    for (const std::string& w : cell.warnings) c->add_warnings(w);
  }
  for (const std::string& w : report.warnings) out.add_warnings(w);
  out.set_method(VariabilityMethod());
  return out;
}

std::string VariabilityMethod() {
  return "one-way random-effects ANOVA, one group per device: F test of "
         "equal device means; between-device variance max(0, (MS_between - "
         "MS_within) / n0), within-device variance MS_within, ICC(1) = "
         "between / (between + within); CV and max/min of the device means; "
         "outlier: a device mean outside the 95% prediction interval from "
         "the other devices' means (3 or more devices); 95% t-based CIs of "
         "each device's mean";
}

}  // namespace powersweep
