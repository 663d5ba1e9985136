// SyntheticVsRealFigure (report_figures.h): the CLOSER'18 comparison.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/power_mode_text.h"
#include "common/synthetic_dataset.h"
#include "controller/cli/report_figures.h"
#include "controller/cli/report_values.h"

namespace powersweep {
namespace {

// A cell without its data set: "host resnet50 train bs8 w1 native | cores=2".
std::string CellWithoutData(const v1::RunSpec& spec) {
  const v1::WorkloadSpec& w = spec.workload();
  std::string text =
      absl::StrCat(spec.device_class(), " ", w.model(), " ", TaskText(w.task()),
                   " bs", w.batch_size(), " w", w.loader_workers(), " ",
                   RuntimeText(spec.runtime()));
  if (spec.tenants() > 1) absl::StrAppend(&text, " x", spec.tenants());
  return absl::StrCat(text, " | ", PowerModeText(spec.power_mode(), "as is"));
}

struct Side {
  std::vector<double> samples_per_s, minibatch_s, stall_s, duration_s;
  std::string provenance;
};

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

// Sample standard deviation; NaN below 2 values.
double Sd(const std::vector<double>& v) {
  if (v.size() < 2) return NAN;
  const double m = Mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

// A figure's number; empty when there is none (an SD of one run).
std::string NumberOrEmpty(double v) {
  return std::isnan(v) ? "" : ReportNumber(v);
}

}  // namespace

FigureTable SyntheticVsRealFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "synthetic_vs_real";
  f.table.header = {"cell",          "data",          "dataset",
                    "runs",          "samples_per_s", "samples_per_s_sd",
                    "minibatch_ms",  "stall_ms",      "elapsed_s",
                    "real_vs_synthetic_percent",      "provenance"};
  // cell -> dataset -> runs, cells in the order first seen.
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, Side>> cells;
  for (const v1::RunStatus& r : in.runs) {
    if (!IsDoneWorkloadRun(r) || r.summary().minibatches() <= 0) continue;
    const std::string cell = CellWithoutData(r.spec());
    if (cells.find(cell) == cells.end()) order.push_back(cell);
    Side& side = cells[cell][r.spec().workload().dataset()];
    const v1::RunSummary& s = r.summary();
    side.samples_per_s.push_back(s.samples_per_s());
    side.minibatch_s.push_back(s.mean_minibatch_s());
    side.stall_s.push_back(s.mean_stall_s());
    side.duration_s.push_back(s.duration_s());
    auto platform = in.platforms.find(r.device_id());
    side.provenance = platform != in.platforms.end() &&
                              platform->second == "twin"
                          ? "simulated"
                          : "measured";
  }
  for (const std::string& cell : order) {
    const std::map<std::string, Side>& sets = cells[cell];
    auto synthetic = sets.find(std::string(kSyntheticDataset));
    // Only cells run on both synthetic and real data compare anything.
    if (synthetic == sets.end() || sets.size() < 2) continue;
    const double base = Mean(synthetic->second.samples_per_s);
    auto row = [&](const std::string& dataset, const Side& side) {
      const double tput = Mean(side.samples_per_s);
      const bool is_synthetic = IsSyntheticDataset(dataset);
      f.table.rows.push_back(
          {cell, is_synthetic ? "synthetic" : "real", dataset,
           std::to_string(side.samples_per_s.size()), ReportNumber(tput),
           NumberOrEmpty(Sd(side.samples_per_s)),
           ReportNumber(Mean(side.minibatch_s) * 1e3),
           ReportNumber(Mean(side.stall_s) * 1e3),
           ReportNumber(Mean(side.duration_s)),
           is_synthetic || !(base > 0)
               ? ""
               : ReportNumber((tput / base - 1) * 100),
           side.provenance});
    };
    row(synthetic->first, synthetic->second);
    for (const auto& [dataset, side] : sets) {
      if (!IsSyntheticDataset(dataset)) row(dataset, side);
    }
  }
  if (f.table.rows.empty()) {
    f.omitted =
        "No cell of the sweep ran on both synthetic and real data (add "
        "MODEL/synthetic beside MODEL/DATASET to the sweep's workloads, as "
        "examples/sweeps/closer18.yaml does).";
  }
  return f;
}

}  // namespace powersweep
