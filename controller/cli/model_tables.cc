#include "controller/cli/model_tables.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/enum_text.h"
#include "common/power_mode_text.h"
#include "common/workload_label.h"

namespace powersweep::model_tables {

std::string Num(double x) { return absl::StrFormat("%.4g", x); }
std::string Pct(double x) { return absl::StrFormat("%.2f%%", x); }

std::string Mhz(double mhz) { return absl::StrFormat("%.6g", mhz); }

// "simulated", "measured", "modeled", "none".
std::string EnergyShort(const v1::WorkloadModel& m) {
  if (!m.has_energy_model()) return "none";
  const std::string p = ProvenanceText(m.energy_provenance());
  return p.empty() || p == "unspecified" ? "mixed" : p;
}

std::string Interval(bool has, double lo, double hi) {
  if (!has) return "-";
  return absl::StrCat(Num(lo), "-", Num(hi));
}

std::string TimeUnit(const v1::WorkloadModel& m) {
  return m.epoch().unit() == "run" ? "run" : "epoch";
}

// The model's fit, for `fit` (text).
void PrintFitted(const v1::FittedModelData& d, const std::string& unit,
                 std::ostream& out) {
  out << "  " << d.target() << " model: " << d.form();
  if (!d.time_form().empty())
    out << " (with time form " << d.time_form() << ")";
  out << ", " << d.coefficients_size() << " coefficients, knobs that varied: "
      << (d.active_knobs().empty() ? "none"
                                   : absl::StrJoin(d.active_knobs(), ", "))
      << "\n";
  Table coef;
  coef.header = {"parameter", "value"};
  coef.numeric = {false, true};
  for (int i = 0; i < d.coefficients_size(); ++i) {
    coef.rows.push_back({i < d.parameter_names_size() ? d.parameter_names(i)
                                                      : absl::StrCat("p", i),
                         absl::StrFormat("%.6g", d.coefficients(i))});
  }
  std::string t = RenderTable(coef, OutputFormat::kTable);
  for (absl::string_view line : absl::StrSplit(t, '\n', absl::SkipEmpty())) {
    out << "    " << line << "\n";
  }
  out << "    in-sample MAPE " << Pct(d.in_sample_mape_pct())
      << "; leave-one-mode-out CV MAPE " << Pct(d.cv_mape_pct()) << " (median "
      << Pct(d.cv_median_ape_pct()) << ") over " << d.held_out_size()
      << " held-out modes; " << d.observations() << " runs, residual sd "
      << Pct(100 * d.residual_std()) << " (" << d.residual_dof() << " dof); "
      << (d.target() == "time" ? "s" : "J") << " per " << unit << "\n";
  if (d.interval_held_out() > 0) {
    out << "    90% intervals held " << d.interval_covered() << " of "
        << d.interval_held_out() << " held-out modes ("
        << Pct(100.0 * d.interval_covered() / d.interval_held_out())
        << ", before calibration); "
        << (d.interval_scale() > 0 && d.interval_scale() != 1
                ? absl::StrFormat("predictions' intervals scaled x%.2f to "
                                  "hold about 90%%",
                                  d.interval_scale())
                : std::string("intervals not rescaled"))
        << "\n";
  }
  if (d.prior_weight() > 0) {
    out << "    transferred: the reference model's coefficients (its "
        << (d.target() == "time" ? "work" : "power")
        << " terms x" << absl::StrFormat("%.3g", d.reference_scale())
        << ") as the prior, weight " << absl::StrFormat("%g", d.prior_weight())
        << "\n";
  }
  Table cand;
  cand.header = {"form", "coefficients", "CV MAPE", "CV median APE", "note"};
  cand.numeric = {false, true, true, true, false};
  for (const v1::ModelFormCandidate& c : d.candidates()) {
    cand.rows.push_back(
        {c.form(),
         c.coefficients() > 0 ? std::to_string(c.coefficients()) : "-",
         c.cross_validated() ? Pct(c.cv_mape_pct()) : "-",
         c.cross_validated() ? Pct(c.cv_median_ape_pct()) : "-",
         c.chosen() ? "chosen" : c.reason()});
  }
  out << "    candidates (" << d.target() << "):\n";
  t = RenderTable(cand, OutputFormat::kTable);
  for (absl::string_view line : absl::StrSplit(t, '\n', absl::SkipEmpty())) {
    out << "      " << line << "\n";
  }
}

// How the model treats device instances, in words.
static std::string InstancesText(const v1::WorkloadModel& m) {
  if (m.instances() == "device") {
    return absl::StrCat("fitted on ", m.device_id(), "'s runs alone");
  }
  if (m.instances() == "offsets") {
    std::vector<std::string> parts;
    for (const v1::DeviceOffset& o : m.offsets_applied()) {
      parts.push_back(absl::StrFormat("%s %s x%.3f", o.device_id(), o.metric(),
                                      o.factor()));
    }
    return absl::StrCat(
        "per class, each run divided by its device's calibration offsets (",
        parts.empty() ? "none found" : absl::StrJoin(parts, ", "), ")");
  }
  return "pooled: every device of the class as one";
}

void PrintModelText(const v1::WorkloadModel& m, std::ostream& out) {
  out << "model " << m.model_id() << ": " << WorkloadLabel(m) << "\n";
  out << "  fitted on " << m.run_ids_size() << " runs of " << SweepsText(m)
      << " at " << m.measured_size() << " distinct modes";
  if (!m.device_ids().empty()) {
    out << " (devices " << absl::StrJoin(m.device_ids(), ", ") << ")";
  }
  out << "\n  instances: " << InstancesText(m) << "\n";
  out << "  data: " << m.data_provenance() << "\n";
  out << "  epoch: " << m.epoch().text() << "\n";
  out << "  mode space: " << m.space().size() << " modes of "
      << m.device_class() << "\n";
  if (m.reference_model_id() > 0) {
    out << "  reference: model " << m.reference_model_id()
        << " (transfer; the notes say what was used)\n";
  }
  PrintFitted(m.time_model(), TimeUnit(m), out);
  if (m.has_energy_model()) PrintFitted(m.energy_model(), TimeUnit(m), out);
  for (const std::string& n : m.notes()) out << "  note: " << n << "\n";
}

// Rows of every candidate form of every model (csv/json for `fit`).
Table CandidatesTable(const std::vector<const v1::WorkloadModel*>& models) {
  Table t;
  t.header = {"model_id",
              "device_class",
              "workload",
              "target",
              "form",
              "chosen",
              "coefficients",
              "cv_mape_pct",
              "cv_median_ape_pct",
              "in_sample_mape_pct",
              "reason",
              "data_provenance",
              "interval_covered",
              "interval_held_out",
              "prior_weight"};
  t.numeric = {true, false, false, false, false, false, true, true,
               true, true,  false, false, true,  true,  true};
  for (const v1::WorkloadModel* m : models) {
    for (const v1::FittedModelData* d :
         {&m->time_model(),
          m->has_energy_model() ? &m->energy_model() : nullptr}) {
      if (d == nullptr) continue;
      for (const v1::ModelFormCandidate& c : d->candidates()) {
        t.rows.push_back({std::to_string(m->model_id()), m->device_class(),
                          WorkloadLabel(*m), d->target(), c.form(),
                          c.chosen() ? "yes" : "no",
                          std::to_string(c.coefficients()),
                          c.cross_validated() ? Num(c.cv_mape_pct()) : "",
                          c.cross_validated() ? Num(c.cv_median_ape_pct()) : "",
                          c.chosen() ? Num(d->in_sample_mape_pct()) : "",
                          c.reason(), m->data_provenance(),
                          c.chosen() ? std::to_string(d->interval_covered())
                                     : "",
                          c.chosen() ? std::to_string(d->interval_held_out())
                                     : "",
                          c.chosen() ? Num(d->prior_weight()) : ""});
      }
    }
  }
  return t;
}

// The prediction rows of predict/best/pareto. Intervals are one "lo-hi"
// column in text tables and two numeric columns in csv/json (for plots).
std::string ExtrapolatedKnobs(const v1::WorkloadModel& model,
                              const v1::PowerMode& mode) {
  const v1::FittedModelData& t = model.time_model();
  if (t.training_modes().empty()) return "";
  struct Knob {
    const char* active;  // FittedModelData.active_knobs name
    const char* column;  // the table's column
    int64_t (*value)(const v1::PowerMode&);
  };
  const Knob knobs[] = {
      {"cpu_cores", "cores",
       [](const v1::PowerMode& m) -> int64_t { return m.cpu_cores(); }},
      {"cpu_freq_khz", "cpu_mhz",
       [](const v1::PowerMode& m) { return m.cpu_freq_khz(); }},
      {"gpu_freq_hz", "gpu_mhz",
       [](const v1::PowerMode& m) { return m.gpu_freq_hz(); }},
      {"mem_freq_hz", "mem_mhz",
       [](const v1::PowerMode& m) { return m.mem_freq_hz(); }}};
  std::vector<std::string> outside;
  for (const Knob& k : knobs) {
    if (std::find(t.active_knobs().begin(), t.active_knobs().end(),
                  k.active) == t.active_knobs().end()) {
      continue;
    }
    int64_t lo = k.value(t.training_modes(0)), hi = lo;
    for (const v1::PowerMode& m : t.training_modes()) {
      lo = std::min(lo, k.value(m));
      hi = std::max(hi, k.value(m));
    }
    const int64_t v = k.value(mode);
    if (v < lo || v > hi) outside.push_back(k.column);
  }
  return absl::StrJoin(outside, ", ");
}

Table PredictionsTable(const std::vector<const v1::ModePrediction*>& ps,
                       bool with_name, OutputFormat format,
                       const v1::WorkloadModel* model) {
  const bool split = format != OutputFormat::kTable;
  Table t;
  auto col = [&](const std::string& name, bool numeric) {
    t.header.push_back(name);
    t.numeric.push_back(numeric);
  };
  if (with_name) col("name", false);
  for (const char* c : {"cores", "cpu_mhz", "gpu_mhz", "mem_mhz"}) col(c, true);
  const std::pair<const char*, const char*> figures[] = {
      {"epoch_time_s", "time"},
      {"epoch_energy_j", "energy"},
      {"power_w", "power"}};
  for (const auto& [name, short_name] : figures) {
    col(name, true);
    if (split) {
      col(absl::StrCat(short_name, "_lo"), true);
      col(absl::StrCat(short_name, "_hi"), true);
    } else {
      col(absl::StrCat(short_name, "_interval"), false);
    }
  }
  col("measured", false);
  col("measured_time_s", true);
  col("measured_energy_j", true);
  if (model != nullptr) col("extrapolated", false);
  const std::string none = split ? "" : "-";
  for (const v1::ModePrediction* p : ps) {
    std::vector<std::string> row;
    if (with_name) row.push_back(p->name().empty() ? none : p->name());
    const v1::PowerMode& m = p->mode();
    row.push_back(std::to_string(m.cpu_cores()));
    row.push_back(m.cpu_freq_khz() ? Mhz(m.cpu_freq_khz() / 1e3) : none);
    row.push_back(m.gpu_freq_hz() ? Mhz(m.gpu_freq_hz() / 1e6) : none);
    row.push_back(m.mem_freq_hz() ? Mhz(m.mem_freq_hz() / 1e6) : none);
    auto figure = [&](bool has, double value, bool has_iv, double lo,
                      double hi) {
      row.push_back(has ? Num(value) : none);
      if (split) {
        row.push_back(has && has_iv ? Num(lo) : none);
        row.push_back(has && has_iv ? Num(hi) : none);
      } else {
        row.push_back(has ? Interval(has_iv, lo, hi) : none);
      }
    };
    figure(true, p->epoch_time_s(), p->has_interval(), p->epoch_time_lo_s(),
           p->epoch_time_hi_s());
    figure(p->has_energy(), p->epoch_energy_j(), p->has_interval(),
           p->epoch_energy_lo_j(), p->epoch_energy_hi_j());
    figure(p->has_energy(), p->power_w(), p->has_interval(), p->power_lo_w(),
           p->power_hi_w());
    row.push_back(p->measured() ? "yes" : "no");
    row.push_back(p->measured() ? Num(p->measured_epoch_time_s()) : none);
    row.push_back(p->measured() && p->measured_epoch_energy_j() > 0
                      ? Num(p->measured_epoch_energy_j())
                      : none);
    if (model != nullptr) {
      const std::string knobs = ExtrapolatedKnobs(*model, m);
      row.push_back(knobs.empty() ? "no" : knobs);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

// One prediction in words: "epoch time 12.3 s (90% interval 11.9-12.8),
// energy 210 J (...), mean power 17.1 W (...)".
std::string Figures(const v1::ModePrediction& p, const std::string& unit) {
  const bool iv = p.has_interval();
  const std::string level =
      iv ? absl::StrFormat("%g%% interval ", 100 * p.interval_level()) : "";
  std::string s = absl::StrCat(unit, " time ", Num(p.epoch_time_s()), " s");
  if (iv) {
    absl::StrAppend(&s, " (", level,
                    Interval(true, p.epoch_time_lo_s(), p.epoch_time_hi_s()),
                    ")");
  }
  if (p.has_energy()) {
    absl::StrAppend(&s, ", energy ", Num(p.epoch_energy_j()), " J");
    if (iv) {
      absl::StrAppend(
          &s, " (",
          Interval(true, p.epoch_energy_lo_j(), p.epoch_energy_hi_j()), ")");
    }
    absl::StrAppend(&s, ", mean power ", Num(p.power_w()), " W");
    if (iv) {
      absl::StrAppend(&s, " (", Interval(true, p.power_lo_w(), p.power_hi_w()),
                      ")");
    }
  }
  return s;
}

std::string MeasuredText(const v1::ModePrediction& p) {
  if (!p.measured()) return "not measured (a prediction)";
  std::string s =
      absl::StrCat("measured: time ", Num(p.measured_epoch_time_s()), " s");
  if (p.measured_epoch_energy_j() > 0) {
    absl::StrAppend(&s, ", energy ", Num(p.measured_epoch_energy_j()), " J");
  }
  return s;
}

}  // namespace powersweep::model_tables
