// The report's figures drawn from runs and models (report_figures.h); the
// telemetry figures are in report_telemetry_figures.cc.
#include "controller/cli/report_figures.h"
#include "controller/cli/report_values.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/power_mode_text.h"

namespace powersweep {
namespace {

// A done workload run that recorded minibatches.
bool IsWorkloadRun(const v1::RunStatus& r) {
  return IsDoneWorkloadRun(r) && r.summary().minibatches() > 0;
}

std::string Panel(const std::string& device_class, const std::string& model,
                  const std::string& dataset, v1::Task task, int batch,
                  int workers, v1::Runtime runtime, int tenants) {
  std::string text = absl::StrCat(device_class, " ", model, "/", dataset, " ",
                                  TaskText(task), " bs", batch, " w", workers,
                                  " ", RuntimeText(runtime));
  if (tenants > 1) absl::StrAppend(&text, " x", tenants);
  return text;
}

// Time figures are simulated on twins; measured elsewhere.
std::string TimeProvenance(const ReportInputs& in, const v1::RunStatus& r) {
  auto it = in.platforms.find(r.device_id());
  if (it != in.platforms.end() && it->second == "twin") return "simulated";
  if (r.summary().energy_provenance() == v1::PROVENANCE_SIMULATED) {
    return "simulated";
  }
  return "measured";
}

// Groups the workload runs into cells (first seen first).
std::vector<std::pair<std::string, std::vector<const v1::RunStatus*>>> Cells(
    const ReportInputs& in) {
  std::vector<std::pair<std::string, std::vector<const v1::RunStatus*>>> out;
  std::map<std::string, size_t> index;
  for (const v1::RunStatus& r : in.runs) {
    if (!IsWorkloadRun(r)) continue;
    const std::string label = FigureCellLabel(r.spec());
    auto [it, inserted] = index.try_emplace(label, out.size());
    if (inserted) out.push_back({label, {}});
    out[it->second].second.push_back(&r);
  }
  return out;
}

struct Point {
  std::string panel, kind, mode, mark;
  double time = 0, energy = 0;
  std::string time_unit, energy_unit, provenance;
  bool on_front = false;
  std::string preset = "";  // the preset the runs asked for, or ""
};

// Marks the points of `points` (indices `members`) no other member
// dominates (no more time and no more energy, less of one).
void MarkFront(std::vector<Point>& points, const std::vector<size_t>& members) {
  for (size_t i : members) {
    bool dominated = false;
    for (size_t j : members) {
      const Point& a = points[i];
      const Point& b = points[j];
      if (i != j && b.time <= a.time && b.energy <= a.energy &&
          (b.time < a.time || b.energy < a.energy)) {
        dominated = true;
        break;
      }
    }
    points[i].on_front = !dominated;
  }
}

// The points of one panel that has a model: measured modes and predictions
// in epoch units. Predictions of no time or energy (a model extrapolated
// past zero, far from its modes) are left out; returns how many.
int ModelPoints(const ReportModel& m,
                const std::map<int64_t, std::string>& presets,
                std::vector<Point>& points) {
  const v1::WorkloadModel& model = m.model;
  const std::string panel = FigurePanelLabel(model);
  const std::string per =
      model.epoch().unit() == "run" ? " per run" : " per epoch";
  const std::string time_unit = "s" + per;
  const std::string energy_unit = "J" + per;
  const std::string energy_prov = ProvenanceText(model.energy_provenance());
  std::vector<size_t> measured;
  for (const v1::MeasuredMode& mm : model.measured()) {
    if (!(mm.epoch_energy_j() > 0)) continue;
    // The mode's runs name the preset they asked for (the model keeps
    // the knobs): mark MAXN and the nvpmodel default among the measured.
    std::string mark;
    auto it = mm.run_ids().empty() ? presets.end()
                                   : presets.find(mm.run_ids(0));
    if (it != presets.end() && it->second == "MAXN") mark = "MAXN";
    if (it != presets.end() && !m.nvpmodel_default.empty() &&
        it->second == m.nvpmodel_default) {
      mark = "nvpmodel default " + m.nvpmodel_default;
    }
    measured.push_back(points.size());
    points.push_back({panel, "measured", PowerModeText(mm.mode(), "as is"),
                      mark, mm.epoch_time_s(), mm.epoch_energy_j(), time_unit,
                      energy_unit, energy_prov});
    if (it != presets.end()) points.back().preset = it->second;
  }
  MarkFront(points, measured);
  // Predictions are modeled from data of the model's provenance.
  const std::string predicted_prov =
      energy_prov == "simulated" ? "simulated" : "modeled";
  int dropped = 0;
  auto add_prediction = [&](const v1::ModePrediction& p,
                            const std::string& kind, const std::string& mark) {
    if (!p.has_energy()) return;
    if (!(p.epoch_time_s() > 0) || !(p.epoch_energy_j() > 0)) {
      ++dropped;
      return;
    }
    points.push_back({panel, kind, PowerModeText(p.mode(), "as is"), mark,
                      p.epoch_time_s(), p.epoch_energy_j(), time_unit,
                      energy_unit, predicted_prov, kind == "predicted_front"});
    // A marked prediction is of the preset its mark names.
    std::string preset = p.mode().preset();
    if (preset.empty() && mark == "MAXN") preset = "MAXN";
    if (preset.empty() && mark == "nvpmodel default " + m.nvpmodel_default) {
      preset = m.nvpmodel_default;
    }
    points.back().preset = preset;
  };
  if (m.has_pareto) {
    for (const v1::ModePrediction& p : m.pareto.front()) {
      add_prediction(p, "predicted_front", "");
    }
    if (m.pareto.default_evaluated()) {
      add_prediction(m.pareto.default_mode(), "predicted",
                     m.pareto.default_mode_name());
    }
  }
  if (m.has_nvpmodel_default) {
    add_prediction(m.nvpmodel_default_prediction, "predicted",
                   "nvpmodel default " + m.nvpmodel_default);
  }
  return dropped;
}

}  // namespace

std::string NvpmodelDefaultPreset(const std::string& device_class) {
  // jetson-platform reference: "Default mode on Orin AGX is 2" (MODE_30W).
  if (device_class == "orin-agx") return "MODE_30W";
  return "";
}

std::string FigurePanelLabel(const v1::RunSpec& spec) {
  const v1::WorkloadSpec& w = spec.workload();
  std::string label =
      Panel(spec.device_class(), w.model(), w.dataset(), w.task(),
            w.batch_size(), w.loader_workers(), spec.runtime(), spec.tenants());
  if (w.input_size() > 0) absl::StrAppend(&label, " @", w.input_size());
  return label;
}

std::string FigurePanelLabel(const v1::WorkloadModel& m) {
  return Panel(m.device_class(), m.model(), m.dataset(), m.task(),
               m.batch_size(), m.loader_workers(), m.runtime(), m.tenants());
}

std::string FigureCellLabel(const v1::RunSpec& spec) {
  return absl::StrCat(FigurePanelLabel(spec), " | ",
                      PowerModeText(spec.power_mode(), "as is"));
}

std::vector<v1::WorkloadModel> LatestClassModels(
    const std::vector<v1::WorkloadModel>& models) {
  std::map<std::string, size_t> latest;
  std::vector<v1::WorkloadModel> out;
  for (const v1::WorkloadModel& m : models) {
    if (!m.device_id().empty()) continue;
    const std::string key = FigurePanelLabel(m);  // pooled or offsets
    auto [it, inserted] = latest.try_emplace(key, out.size());
    if (inserted) {
      out.push_back(m);
    } else if (m.model_id() > out[it->second].model_id()) {
      out[it->second] = m;
    }
  }
  return out;
}

double MinibatchEnergyMj(const v1::RunSummary& s) {
  const double n = static_cast<double>(std::max<int64_t>(1, s.minibatches()));
  const double phases = s.energy_stall_j() + s.energy_compute_j();
  if (phases > 0) return phases / n * 1e3;
  // No phase split: the mean power over the span the energy covers, for
  // the minibatch's mean time (mW x s = mJ).
  if (s.mean_power_mw() > 0) return s.mean_power_mw() * s.mean_minibatch_s();
  return s.energy_j() / n * 1e3;
}

FigureTable ParetoFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "pareto";
  f.table.header = {"panel",     "kind",        "mode",     "mark",
                    "time",      "time_unit",   "energy",   "energy_unit",
                    "on_front",  "provenance",  "preset"};
  std::vector<Point> points;
  std::map<int64_t, std::string> presets;  // run id -> preset asked for
  for (const v1::RunStatus& r : in.runs) {
    presets[r.spec().run_id()] = r.spec().power_mode().preset();
  }
  std::set<std::string> modeled;
  int dropped = 0;
  for (const ReportModel& m : in.models) {
    modeled.insert(FigurePanelLabel(m.model));
    dropped += ModelPoints(m, presets, points);
  }
  // Panels without a model: per minibatch from the runs, per mode.
  struct Acc {
    std::string panel, mode, mark, provenance, preset;
    double ms = 0, mj = 0;
    int n = 0;
  };
  std::vector<Acc> accs;
  std::map<std::string, size_t> index;
  for (const v1::RunStatus& r : in.runs) {
    const v1::RunSummary& s = r.summary();
    if (!IsWorkloadRun(r) || !(s.energy_j() > 0)) continue;
    const std::string panel = FigurePanelLabel(r.spec());
    if (modeled.count(panel)) continue;
    const std::string mode = PowerModeText(r.spec().power_mode(), "as is");
    auto [it, inserted] = index.try_emplace(panel + "|" + mode, accs.size());
    if (inserted) {
      const std::string& preset = r.spec().power_mode().preset();
      const std::string nvp = NvpmodelDefaultPreset(r.spec().device_class());
      std::string mark;
      if (preset == "MAXN") mark = "MAXN";
      if (!nvp.empty() && preset == nvp) mark = "nvpmodel default " + nvp;
      accs.push_back({panel, mode, mark,
                      ProvenanceText(s.energy_provenance()), preset});
    }
    Acc& a = accs[it->second];
    a.ms += s.mean_minibatch_s() * 1e3;
    a.mj += MinibatchEnergyMj(s);
    ++a.n;
  }
  std::map<std::string, std::vector<size_t>> by_panel;
  for (const Acc& a : accs) {
    by_panel[a.panel].push_back(points.size());
    points.push_back({a.panel, "measured", a.mode, a.mark, a.ms / a.n,
                      a.mj / a.n, "ms per minibatch", "mJ per minibatch",
                      a.provenance});
    points.back().preset = a.preset;
  }
  for (const auto& [panel, members] : by_panel) MarkFront(points, members);
  for (const Point& p : points) {
    f.table.rows.push_back({p.panel, p.kind, p.mode, p.mark, ReportNumber(p.time),
                            p.time_unit, ReportNumber(p.energy), p.energy_unit,
                            p.on_front ? "1" : "0", p.provenance, p.preset});
  }
  if (points.empty()) {
    f.omitted = "No done workload run of this sweep has an energy figure "
                "(no power readings), so there is no time-energy trade-off "
                "to draw.";
  } else if (in.models.empty()) {
    f.note = absl::StrCat(
        "Measured modes per minibatch: the energy of the minibatches "
        "themselves (their stall and compute phases, as the models use; "
        "start-up and tail left out); no model is fitted on this sweep, so "
        "no predicted front (powersweep fit --sweep ", in.sweep_id, ").");
  } else {
    f.note = "Measured modes and the front a fitted model predicts over the "
             "class's whole mode space, per epoch.";
    if (dropped > 0) {
      absl::StrAppend(&f.note, " ", dropped,
                      " predicted mode(s) with no time or energy (the model "
                      "extrapolated past zero) are left out.");
    }
  }
  return f;
}

FigureTable MinibatchTimeFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "minibatch_time";
  f.table.header = {"cell",        "runs",        "stall_ms", "compute_ms",
                    "overhead_ms", "minibatch_ms", "provenance"};
  for (const auto& [label, runs] : Cells(in)) {
    double stall = 0, compute = 0, total = 0;
    for (const v1::RunStatus* r : runs) {
      stall += r->summary().mean_stall_s();
      compute += r->summary().mean_compute_s();
      total += r->summary().mean_minibatch_s();
    }
    const double n = static_cast<double>(runs.size());
    const double overhead = std::max(0.0, total - stall - compute);
    f.table.rows.push_back({label, std::to_string(runs.size()),
                            ReportNumber(stall / n * 1e3), ReportNumber(compute / n * 1e3),
                            ReportNumber(overhead / n * 1e3), ReportNumber(total / n * 1e3),
                            TimeProvenance(in, *runs.front())});
  }
  if (f.table.rows.empty()) {
    f.omitted = "The sweep has no done workload run with minibatch records.";
  }
  return f;
}

FigureTable EnergySplitFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "energy_split";
  f.table.header = {"cell",         "runs",     "baseload_j",
                    "incremental_j", "energy_j", "baseload_power_w",
                    "provenance"};
  for (const auto& [label, runs] : Cells(in)) {
    double energy = 0, incremental = 0, power = 0;
    int n = 0;
    std::string provenance;
    for (const v1::RunStatus* r : runs) {
      const v1::RunSummary& s = r->summary();
      if (s.baseload_run_id() <= 0 || !(s.energy_j() > 0)) continue;
      energy += s.energy_j();
      incremental += s.incremental_energy_j();
      power += s.baseload_power_mw() / 1e3;
      provenance = ProvenanceText(s.energy_provenance());
      ++n;
    }
    if (n == 0) continue;
    f.table.rows.push_back({label, std::to_string(n),
                            ReportNumber((energy - incremental) / n),
                            ReportNumber(incremental / n), ReportNumber(energy / n),
                            ReportNumber(power / n), provenance});
  }
  if (f.table.rows.empty()) {
    f.omitted = "No done workload run has a baseload: baseload energy needs "
                "a baseload run of the same device and power mode (add "
                "`baseload` to the sweep's tasks, with duration_s).";
  }
  return f;
}

FigureTable VariabilityFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "variability";
  f.table.header = {"cell",         "device_id", "run_id",
                    "minibatch_ms", "energy_j",  "provenance",
                    "minibatch_outlier", "energy_outlier"};
  auto outlier = [&](const char* metric, int64_t run_id) -> std::string {
    auto it = in.outlier_runs.find(metric);
    return it != in.outlier_runs.end() && it->second.count(run_id) ? "1"
                                                                    : "0";
  };
  for (const auto& [label, runs] : Cells(in)) {
    std::set<std::string> devices;
    for (const v1::RunStatus* r : runs) devices.insert(r->device_id());
    if (devices.size() < 2) continue;
    std::vector<const v1::RunStatus*> sorted = runs;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const v1::RunStatus* a, const v1::RunStatus* b) {
                       return a->device_id() < b->device_id();
                     });
    for (const v1::RunStatus* r : sorted) {
      const v1::RunSummary& s = r->summary();
      f.table.rows.push_back(
          {label, r->device_id(), std::to_string(r->spec().run_id()),
           ReportNumber(s.mean_minibatch_s() * 1e3),
           s.energy_j() > 0 ? ReportNumber(s.energy_j()) : "",
           TimeProvenance(in, *r),
           outlier("minibatch_time", r->spec().run_id()),
           s.energy_j() > 0 ? outlier("energy", r->spec().run_id()) : ""});
    }
  }
  if (f.table.rows.empty()) {
    f.omitted = "Every cell of the sweep ran on a single device, so there is "
                "no instance-to-instance spread to show (placement: "
                "every_device runs a cell on each board of the class).";
  } else {
    f.note = "Cells run on two or more devices; one box per device over its "
             "runs.";
  }
  return f;
}

FigureTable HeldOutFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "heldout";
  f.table.header = {"panel",    "model_id",  "target",  "unit",
                    "mode",     "observations", "measured", "predicted",
                    "ape_pct",  "provenance"};
  for (const ReportModel& m : in.models) {
    const v1::WorkloadModel& model = m.model;
    const std::string per =
        model.epoch().unit() == "run" ? " per run" : " per epoch";
    auto add = [&](const v1::FittedModelData& d, const std::string& unit,
                   v1::Provenance prov) {
      for (const v1::HeldOutModeError& e : d.held_out()) {
        f.table.rows.push_back(
            {FigurePanelLabel(model), std::to_string(model.model_id()), d.target(),
             unit + per, PowerModeText(e.mode(), "as is"),
             std::to_string(e.observations()), ReportNumber(e.observed()),
             ReportNumber(e.predicted()), ReportNumber(e.ape_pct()), ProvenanceText(prov)});
      }
    };
    add(model.time_model(), "s", model.time_provenance());
    if (model.has_energy_model()) {
      add(model.energy_model(), "J", model.energy_provenance());
    }
  }
  if (in.models.empty()) {
    f.omitted = absl::StrCat(
        "No model is fitted on this sweep, so there are no held-out modes to "
        "compare (powersweep fit --sweep ", in.sweep_id, ").");
  } else if (f.table.rows.empty()) {
    f.omitted = "The models fitted on this sweep have no held-out errors "
                "(too few distinct modes to cross-validate).";
  } else {
    f.note = "Leave-one-mode-out: each mode predicted by the model fitted "
             "without its runs.";
  }
  return f;
}

std::vector<FigureTable> AllFigures(const ReportInputs& in) {
  return {ParetoFigure(in),     MinibatchTimeFigure(in),
          EnergySplitFigure(in), DistributionsFigure(in),
          TimelineFigure(in),    HeldOutFigure(in),
          VariabilityFigure(in), SyntheticVsRealFigure(in),
          TraceSyscallsFigure(in), TraceWritebackFigure(in)};
}

}  // namespace powersweep
