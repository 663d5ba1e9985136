#include "controller/cli/model_commands.h"

#include <chrono>
#include <fstream>
#include <memory>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/enum_text.h"
#include "controller/cli/format.h"
#include "grpcpp/grpcpp.h"

namespace powersweep {
namespace {

std::string Num(double x) { return absl::StrFormat("%.4g", x); }
std::string Pct(double x) { return absl::StrFormat("%.2f%%", x); }

std::string Mhz(double mhz) { return absl::StrFormat("%.6g", mhz); }

// "cores=4 cpu=1190.4MHz gpu=1377MHz mem=2133MHz" (0 knobs left out).
std::string ModeText(const v1::PowerMode& m) {
  std::vector<std::string> parts;
  if (!m.preset().empty()) parts.push_back(m.preset());
  if (m.cpu_cores() != 0)
    parts.push_back(absl::StrCat("cores=", m.cpu_cores()));
  if (m.cpu_freq_khz() != 0) {
    parts.push_back(absl::StrCat("cpu=", Mhz(m.cpu_freq_khz() / 1e3), "MHz"));
  }
  if (m.gpu_freq_hz() != 0) {
    parts.push_back(absl::StrCat("gpu=", Mhz(m.gpu_freq_hz() / 1e6), "MHz"));
  }
  if (m.mem_freq_hz() != 0) {
    parts.push_back(absl::StrCat("mem=", Mhz(m.mem_freq_hz() / 1e6), "MHz"));
  }
  return parts.empty() ? "-" : absl::StrJoin(parts, " ");
}

std::string Workload(const v1::WorkloadModel& m) {
  std::string s =
      absl::StrCat(m.model(), " ", m.dataset(), " ", TaskText(m.task()),
                   " batch ", m.batch_size(), " workers ", m.loader_workers(),
                   " on ", m.device_class());
  if (m.runtime() == v1::RUNTIME_CONTAINER) absl::StrAppend(&s, " (container)");
  if (m.tenants() > 1) absl::StrAppend(&s, ", ", m.tenants(), " tenants");
  return s;
}

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

void PrintModelText(const v1::WorkloadModel& m, std::ostream& out) {
  out << "model " << m.model_id() << ": " << Workload(m) << "\n";
  out << "  fitted on " << m.run_ids_size() << " runs of sweep " << m.sweep_id()
      << " at " << m.measured_size() << " distinct modes";
  if (!m.device_ids().empty()) {
    out << " (devices " << absl::StrJoin(m.device_ids(), ", ") << ")";
  }
  out << "\n  data: " << m.data_provenance() << "\n";
  out << "  epoch: " << m.epoch().text() << "\n";
  out << "  mode space: " << m.space().size() << " modes of "
      << m.device_class() << "\n";
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
              "data_provenance"};
  t.numeric = {true, false, false, false, false, false,
               true, true,  true,  true,  false, false};
  for (const v1::WorkloadModel* m : models) {
    for (const v1::FittedModelData* d :
         {&m->time_model(),
          m->has_energy_model() ? &m->energy_model() : nullptr}) {
      if (d == nullptr) continue;
      for (const v1::ModelFormCandidate& c : d->candidates()) {
        t.rows.push_back({std::to_string(m->model_id()), m->device_class(),
                          Workload(*m), d->target(), c.form(),
                          c.chosen() ? "yes" : "no",
                          std::to_string(c.coefficients()),
                          c.cross_validated() ? Num(c.cv_mape_pct()) : "",
                          c.cross_validated() ? Num(c.cv_median_ape_pct()) : "",
                          c.chosen() ? Num(d->in_sample_mape_pct()) : "",
                          c.reason(), m->data_provenance()});
      }
    }
  }
  return t;
}

// The prediction rows of predict/best/pareto. Intervals are one "lo-hi"
// column in text tables and two numeric columns in csv/json (for plots).
Table PredictionsTable(const std::vector<const v1::ModePrediction*>& ps,
                       bool with_name, OutputFormat format) {
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

// Notes after a table: on `out` for text, on `err` for csv/json.
std::ostream& Notes(const CliOptions& opt, std::ostream& out,
                    std::ostream& err) {
  return opt.format == OutputFormat::kTable ? out : err;
}

}  // namespace

int CmdFit(v1::Control::StubInterface* stub, const CliOptions& opt,
           std::ostream& out, std::ostream& err) {
  v1::FitModelsRequest req;
  req.set_sweep_id(opt.sweep_id);
  v1::FitModelsResponse resp;
  auto ctx = RpcContext(300);
  grpc::Status st = stub->FitModels(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  std::vector<const v1::WorkloadModel*> models;
  for (const v1::WorkloadModel& m : resp.models()) models.push_back(&m);
  if (opt.format == OutputFormat::kTable) {
    out << "sweep " << opt.sweep_id << ": " << resp.models_size()
        << " model(s) fitted and stored from " << resp.runs_used()
        << " runs\n\n";
    for (const v1::WorkloadModel* m : models) {
      PrintModelText(*m, out);
      out << "\n";
    }
  } else {
    out << RenderTable(CandidatesTable(models), opt.format);
  }
  std::ostream& notes = Notes(opt, out, err);
  for (const std::string& p : resp.problems())
    notes << "not fitted: " << p << "\n";
  if (!resp.skipped().empty()) {
    notes << resp.skipped_size() << " run(s) left out:";
    for (int i = 0; i < resp.skipped_size() && i < 10; ++i) {
      notes << (i == 0 ? " " : "; ") << resp.skipped(i);
    }
    notes << (resp.skipped_size() > 10 ? "; ..." : "") << "\n";
  }
  return resp.models().empty() ? kExitFailed : kExitOk;
}

int CmdModels(v1::Control::StubInterface* stub,
              const v1::ModelSelector& selector, const CliOptions& opt,
              std::ostream& out, std::ostream& err) {
  v1::ListModelsRequest req;
  *req.mutable_selector() = selector;
  v1::ListModelsResponse resp;
  auto ctx = RpcContext(60);
  grpc::Status st = stub->ListModels(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  Table t;
  t.header = {"model",       "sweep",          "class",       "workload",
              "runs",        "modes",          "time_form",   "time_cv_mape",
              "energy_form", "energy_cv_mape", "energy_data", "fitted"};
  t.numeric = {true,  true, false, false, true,  true,
               false, true, false, true,  false, false};
  for (const v1::WorkloadModel& m : resp.models()) {
    t.rows.push_back(
        {std::to_string(m.model_id()), std::to_string(m.sweep_id()),
         m.device_class(),
         absl::StrCat(m.model(), " ", m.dataset(), " ", TaskText(m.task()),
                      " b", m.batch_size(), " w", m.loader_workers(),
                      m.tenants() > 1 ? absl::StrCat(" t", m.tenants()) : ""),
         std::to_string(m.run_ids_size()), std::to_string(m.measured_size()),
         m.time_model().form(), Pct(m.time_model().cv_mape_pct()),
         m.has_energy_model() ? m.energy_model().form() : "-",
         m.has_energy_model() ? Pct(m.energy_model().cv_mape_pct()) : "-",
         EnergyShort(m),
         absl::FormatTime("%Y-%m-%d %H:%M:%S",
                          absl::FromUnixMillis(m.fitted_unix_ms()),
                          absl::LocalTimeZone())});
  }
  out << RenderTable(t, opt.format);
  if (resp.models().empty()) {
    err << "no stored model matches (fit one with `powersweep fit --sweep "
           "ID`)\n";
  }
  return kExitOk;
}

int CmdPredict(v1::Control::StubInterface* stub,
               const v1::PredictRequest& request, const CliOptions& opt,
               std::ostream& out, std::ostream& err) {
  v1::PredictResponse resp;
  auto ctx = RpcContext(60);
  grpc::Status st = stub->Predict(ctx.get(), request, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  std::vector<const v1::ModePrediction*> ps;
  for (const v1::ModePrediction& p : resp.predictions()) ps.push_back(&p);
  std::ostream& notes = Notes(opt, out, err);
  if (opt.format == OutputFormat::kTable) {
    out << "predicted per " << TimeUnit(resp.model()) << " for "
        << Workload(resp.model()) << ":\n";
  }
  out << RenderTable(PredictionsTable(ps, /*with_name=*/true, opt.format),
                     opt.format);
  notes << "basis: " << resp.basis() << "\n";
  return kExitOk;
}

int CmdBest(v1::Control::StubInterface* stub, const v1::BestRequest& request,
            const CliOptions& opt, std::ostream& out, std::ostream& err) {
  v1::BestResponse resp;
  auto ctx = RpcContext(120);
  grpc::Status st = stub->Best(ctx.get(), request, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  const std::string unit = TimeUnit(resp.model());
  const v1::ModePrediction& b = resp.best();
  const v1::ModePrediction& d = resp.default_mode();
  if (opt.format == OutputFormat::kTable) {
    out << "best mode for " << Workload(resp.model()) << ": "
        << resp.objective() << ", over " << resp.modes_considered()
        << " modes\n";
    out << "  mode: " << ModeText(b.mode()) << "\n";
    out << "  predicted " << Figures(b, unit) << "\n";
    out << "  " << MeasuredText(b) << "\n";
    if (d.epoch_time_s() > 0) {
      out << "  vs " << d.name() << " (" << ModeText(d.mode())
          << "): predicted " << Figures(d, unit) << "\n";
      if (d.has_energy() && d.epoch_energy_j() > 0) {
        out << "  the best mode uses "
            << absl::StrFormat(
                   "%+.1f%%",
                   100 * (b.epoch_energy_j() / d.epoch_energy_j() - 1))
            << " energy and "
            << absl::StrFormat("%+.1f%%",
                               100 * (b.epoch_time_s() / d.epoch_time_s() - 1))
            << " time relative to " << d.name() << " (predicted)\n";
      }
    }
  } else {
    std::vector<const v1::ModePrediction*> ps = {&b};
    if (d.epoch_time_s() > 0) ps.push_back(&d);
    Table t = PredictionsTable(ps, /*with_name=*/true, opt.format);
    t.rows[0][0] = "best";
    out << RenderTable(t, opt.format);
    err << "objective: " << resp.objective() << "\n";
  }
  std::ostream& notes = Notes(opt, out, err);
  // A pick on the edge of a budget is likely over it when the model errs
  // low there; say so, with what --conservative is for.
  if (!request.conservative() && b.has_interval()) {
    const struct {
      double budget, hi;
      const char* what;
    } edges[] = {
        {request.max_epoch_time_s(), b.epoch_time_hi_s(), "epoch time"},
        {request.max_power_w(), b.power_hi_w(), "mean power"},
        {request.max_energy_j(), b.epoch_energy_hi_j(), "epoch energy"}};
    for (const auto& e : edges) {
      if (e.budget > 0 && e.hi > e.budget) {
        notes << "note: the upper end of the " << e.what << "'s "
              << absl::StrFormat("%g%%", 100 * b.interval_level())
              << " interval (" << Num(e.hi)
              << ") is over the budget: the mode may not meet it; "
                 "--conservative picks only modes whose upper end meets it\n";
      }
    }
  }
  notes << "basis: " << resp.basis() << "\n";
  return kExitOk;
}

int CmdPareto(v1::Control::StubInterface* stub,
              const v1::ParetoRequest& request, const CliOptions& opt,
              std::ostream& out, std::ostream& err) {
  v1::ParetoResponse resp;
  auto ctx = RpcContext(120);
  grpc::Status st = stub->Pareto(ctx.get(), request, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  std::vector<const v1::ModePrediction*> ps;
  for (const v1::ModePrediction& p : resp.front()) ps.push_back(&p);
  const std::string what = request.measured_only() ? "measured" : "predicted";
  if (opt.format == OutputFormat::kTable) {
    out << what << " time-energy Pareto front for " << Workload(resp.model())
        << ": " << resp.front_size() << " of " << resp.modes_considered()
        << " modes, fastest first\n";
  }
  out << RenderTable(PredictionsTable(ps, /*with_name=*/false, opt.format),
                     opt.format);
  std::ostream& notes = Notes(opt, out, err);
  const v1::ModePrediction& d = resp.default_mode();
  const std::string def =
      absl::StrCat(resp.default_mode_name(), " (", ModeText(d.mode()), ")");
  if (!resp.default_evaluated()) {
    notes << def << " is not among the " << what
          << " modes, so it was not compared\n";
  } else if (resp.default_on_front()) {
    notes << def << " is on the " << what << " front\n";
  } else {
    const v1::ModePrediction& by = resp.default_dominated_by();
    notes << def << " is NOT on the " << what
          << " front: " << Num(d.epoch_time_s()) << " s, "
          << Num(d.epoch_energy_j()) << " J per " << TimeUnit(resp.model())
          << "; dominated by " << ModeText(by.mode()) << " at "
          << Num(by.epoch_time_s()) << " s, " << Num(by.epoch_energy_j())
          << " J\n";
  }
  notes << "basis: " << resp.basis() << "\n";
  return kExitOk;
}

int CmdPlanProfiling(v1::Control::StubInterface* stub,
                     const v1::PlanProfilingRequest& request,
                     const std::string& out_file, const CliOptions& opt,
                     std::ostream& out, std::ostream& err) {
  v1::PlanProfilingResponse resp;
  auto ctx = RpcContext(120);
  grpc::Status st = stub->PlanProfiling(ctx.get(), request, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  // Without --out the YAML is the output; the rest goes to err.
  std::ostream& report = out_file.empty() ? err : out;
  Table t;
  t.header = {"#", "space_index", "cores", "cpu_mhz", "gpu_mhz", "mem_mhz"};
  t.numeric = {true, true, true, true, true, true};
  for (int i = 0; i < resp.modes_size(); ++i) {
    const v1::PowerMode& m = resp.modes(i);
    t.rows.push_back({std::to_string(i + 1),
                      i < resp.space_indices_size()
                          ? std::to_string(resp.space_indices(i))
                          : "-",
                      std::to_string(m.cpu_cores()),
                      m.cpu_freq_khz() ? Mhz(m.cpu_freq_khz() / 1e3) : "-",
                      m.gpu_freq_hz() ? Mhz(m.gpu_freq_hz() / 1e6) : "-",
                      m.mem_freq_hz() ? Mhz(m.mem_freq_hz() / 1e6) : "-"});
  }
  report << resp.modes_size() << " modes to profile on "
         << request.device_class() << " (of " << resp.space_size()
         << "; design for time form " << resp.time_form() << ", energy form "
         << resp.energy_form() << ")";
  if (!resp.already_profiled().empty()) {
    report << ", after the " << resp.already_profiled_size()
           << " modes profiled in sweep " << request.after_sweep_id();
  }
  report << ":\n" << RenderTable(t, opt.format);
  if (resp.has_current_model()) {
    const v1::WorkloadModel& m = resp.current_model();
    report << "current model " << m.model_id() << " of sweep " << m.sweep_id()
           << ": time " << m.time_model().form() << " CV MAPE "
           << Pct(m.time_model().cv_mape_pct());
    if (m.has_energy_model()) {
      report << ", energy " << m.energy_model().form() << " CV MAPE "
             << Pct(m.energy_model().cv_mape_pct());
    }
    report << " (leave-one-mode-out, on " << m.measured_size()
           << " modes; data: " << m.data_provenance() << ")\n";
  }
  for (const std::string& n : resp.notes()) report << "note: " << n << "\n";
  if (out_file.empty()) {
    out << resp.sweep_yaml();
    return kExitOk;
  }
  std::ofstream f(out_file);
  f << resp.sweep_yaml();
  f.close();
  if (!f) {
    err << "error: --out: cannot write " << out_file << "\n";
    return kExitFailed;
  }
  report << "wrote " << out_file << " (" << resp.sweep().power_modes_size()
         << " runs x " << resp.sweep().repetitions()
         << " repetition(s)); submit it with `powersweep submit " << out_file
         << "`\n";
  return kExitOk;
}

}  // namespace powersweep
