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
#include "common/power_mode_text.h"
#include "common/workload_label.h"
#include "controller/cli/format.h"
#include "controller/cli/model_tables.h"
#include "grpcpp/grpcpp.h"

namespace powersweep {
namespace {

using model_tables::CandidatesTable;
using model_tables::EnergyShort;
using model_tables::Figures;
using model_tables::MeasuredText;
using model_tables::Mhz;
using model_tables::Num;
using model_tables::Pct;
using model_tables::PredictionsTable;
using model_tables::PrintModelText;
using model_tables::TimeUnit;

// Notes after a table: on `out` for text, on `err` for csv/json.
std::ostream& Notes(const CliOptions& opt, std::ostream& out,
                    std::ostream& err) {
  return opt.format == OutputFormat::kTable ? out : err;
}

}  // namespace

int CmdFit(v1::Control::StubInterface* stub, const CliOptions& opt,
           const std::string& instances, int64_t reference_model_id,
           std::ostream& out, std::ostream& err) {
  v1::FitModelsRequest req;
  for (int64_t id : opt.sweep_ids) req.add_sweep_ids(id);
  if (opt.sweep_ids.empty()) req.set_sweep_id(opt.sweep_id);
  req.set_instances(instances);
  req.set_reference_model_id(reference_model_id);
  v1::FitModelsResponse resp;
  auto ctx = RpcContext(300);
  grpc::Status st = stub->FitModels(ctx.get(), req, &resp);
  if (!st.ok()) return ReportRpcError(st, opt, err);
  std::vector<const v1::WorkloadModel*> models;
  for (const v1::WorkloadModel& m : resp.models()) models.push_back(&m);
  if (opt.format == OutputFormat::kTable) {
    out << (opt.sweep_ids.size() > 1 ? "sweeps " : "sweep ")
        << (opt.sweep_ids.empty() ? std::to_string(opt.sweep_id)
                                  : absl::StrJoin(opt.sweep_ids, ", "))
        << ": " << resp.models_size()
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
  t.header = {"model",       "sweep",       "class",          "instances",
              "device",      "workload",    "runs",           "modes",
              "time_form",   "time_cv_mape", "energy_form",   "energy_cv_mape",
              "energy_data", "fitted"};
  t.numeric = {true,  false, false, false, false, false, true,
               true,  false, true,  false, true,  false, false};
  for (const v1::WorkloadModel& m : resp.models()) {
    // The sweeps of a fit of several, "8,12" (one column a script splits).
    const std::string sweeps =
        m.sweep_ids_size() > 1 ? absl::StrJoin(m.sweep_ids(), ",")
                               : std::to_string(m.sweep_id());
    t.rows.push_back(
        {std::to_string(m.model_id()), sweeps, m.device_class(),
         m.instances().empty() ? "pooled" : m.instances(),
         m.device_id().empty() ? "-" : m.device_id(),
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
        << WorkloadLabel(resp.model()) << ":\n";
  }
  out << RenderTable(
      PredictionsTable(ps, /*with_name=*/true, opt.format, &resp.model()),
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
    out << "best mode for " << WorkloadLabel(resp.model()) << ": "
        << resp.objective() << ", over " << resp.modes_considered()
        << " modes\n";
    const char* kind = request.measured_only() ? "measured" : "predicted";
    out << "  mode: " << PowerModeText(b.mode(), "-") << "\n";
    out << "  " << kind << " " << Figures(b, unit) << "\n";
    if (!request.measured_only()) out << "  " << MeasuredText(b) << "\n";
    if (d.epoch_time_s() > 0) {
      out << "  vs " << d.name() << " (" << PowerModeText(d.mode(), "-")
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
    if (resp.candidates_size() > 1) {
      out << "  the " << resp.candidates_size()
          << " best modes that meet the budget (" << kind << "):\n";
      std::vector<const v1::ModePrediction*> cs;
      for (const v1::ModePrediction& c : resp.candidates()) cs.push_back(&c);
      out << RenderTable(PredictionsTable(cs, /*with_name=*/false,
                                          opt.format, &resp.model()),
                         opt.format);
    }
  } else {
    std::vector<const v1::ModePrediction*> ps = {&b};
    if (d.epoch_time_s() > 0) ps.push_back(&d);
    for (int i = 1; i < resp.candidates_size(); ++i) {
      ps.push_back(&resp.candidates(i));
    }
    Table t =
        PredictionsTable(ps, /*with_name=*/true, opt.format, &resp.model());
    t.rows[0][0] = "best";
    for (size_t i = d.epoch_time_s() > 0 ? 2 : 1; i < t.rows.size(); ++i) {
      t.rows[i][0] = absl::StrCat("candidate ",
                                  i - (d.epoch_time_s() > 0 ? 1 : 0) + 1);
    }
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
    out << what << " time-energy Pareto front for " << WorkloadLabel(resp.model())
        << ": " << resp.front_size() << " of " << resp.modes_considered()
        << " modes, fastest first\n";
  }
  out << RenderTable(
      PredictionsTable(ps, /*with_name=*/false, opt.format, &resp.model()),
      opt.format);
  std::ostream& notes = Notes(opt, out, err);
  const v1::ModePrediction& d = resp.default_mode();
  const std::string def = absl::StrCat(resp.default_mode_name(), " (",
                                       PowerModeText(d.mode(), "-"), ")");
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
          << "; dominated by " << PowerModeText(by.mode(), "-") << " at "
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
