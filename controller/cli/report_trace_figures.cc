// The report's kernel-trace figures (docs/report.md, docs/traces.md): the
// most frequent system calls per cell (the Appl. Sci. '23 study's Table 5)
// and write-backs per cell (its Fig. 3: the intervals between them; Tables
// 9 and 10: their reasons). A cell is FigureCellLabel of the runs that
// differ only in repetition; only done workload runs' current attempts
// count, and a traced run without a row for a figure counts as 0 of it
// (runs for which the trace is missing do not count).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/cli/report_figures.h"
#include "controller/cli/report_values.h"

namespace powersweep {
namespace {

constexpr int kTopSyscalls = 8;

struct TraceCell {
  std::set<int64_t> runs;
  // name -> summed count (and for write-backs the runs' interval stats)
  std::map<std::string, double> count;
  std::map<std::string, std::vector<double>> interval_mean;
  std::map<std::string, std::vector<double>> interval_sd;
};

// Cells in the order their first run appears, for the rows of `kind`.
std::vector<std::pair<std::string, TraceCell>> CellsOf(const ReportInputs& in,
                                                       const std::string& kind) {
  std::map<int64_t, std::pair<int32_t, std::string>> current;
  std::vector<std::string> order;
  for (const v1::RunStatus& r : in.runs) {
    if (!IsDoneWorkloadRun(r)) continue;
    const std::string label = FigureCellLabel(r.spec());
    current[r.spec().run_id()] = {r.spec().attempt(), label};
    if (std::find(order.begin(), order.end(), label) == order.end()) {
      order.push_back(label);
    }
  }
  // A run counts in a cell when it has trace rows (its sweep asked for
  // traces) and `kind` is not missing for it: a run with no row of the
  // kind had none of it (0).
  std::map<int64_t, bool> traced;  // run -> kind missing
  for (const TraceCsvRow& t : in.traces) {
    auto it = current.find(t.run_id);
    if (it == current.end() || it->second.first != t.attempt) continue;
    traced[t.run_id] |= t.kind == kind && !t.missing_reason.empty();
  }
  std::map<std::string, TraceCell> cells;
  for (const auto& [run, missing] : traced) {
    if (!missing) cells[current[run].second].runs.insert(run);
  }
  for (const TraceCsvRow& t : in.traces) {
    auto it = current.find(t.run_id);
    if (it == current.end() || it->second.first != t.attempt ||
        t.kind != kind || !t.missing_reason.empty()) {
      continue;
    }
    TraceCell& cell = cells[it->second.second];
    cell.count[t.name] += t.count.value_or(0);
    if (t.interval_mean_s) {
      cell.interval_mean[t.name].push_back(*t.interval_mean_s);
      cell.interval_sd[t.name].push_back(t.interval_sd_s.value_or(0));
    }
  }
  std::vector<std::pair<std::string, TraceCell>> out;
  for (const std::string& label : order) {
    auto it = cells.find(label);
    if (it != cells.end() && !it->second.count.empty()) out.push_back(*it);
  }
  return out;
}

double MeanOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

FigureTable TraceSyscallsFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "trace_syscalls";
  f.table.header = {"cell", "syscall", "calls_per_run", "share_percent",
                    "runs"};
  const auto cells = CellsOf(in, "syscalls");
  // The calls that are among the most frequent of any cell.
  std::map<std::string, double> top_share;
  for (const auto& [label, cell] : cells) {
    double total = 0;
    for (const auto& [name, n] : cell.count) total += n;
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& [name, n] : cell.count) ranked.push_back({n, name});
    std::sort(ranked.rbegin(), ranked.rend());
    for (size_t i = 0; i < ranked.size() && i < kTopSyscalls; ++i) {
      top_share[ranked[i].second] =
          std::max(top_share[ranked[i].second], ranked[i].first / total);
    }
  }
  std::vector<std::pair<double, std::string>> chosen;
  for (const auto& [name, share] : top_share) chosen.push_back({share, name});
  std::sort(chosen.rbegin(), chosen.rend());
  if (chosen.size() > kTopSyscalls) chosen.resize(kTopSyscalls);
  for (const auto& [label, cell] : cells) {
    double total = 0;
    for (const auto& [name, n] : cell.count) total += n;
    const double runs = static_cast<double>(cell.runs.size());
    for (const auto& [share, name] : chosen) {
      auto it = cell.count.find(name);
      const double n = it == cell.count.end() ? 0 : it->second;
      f.table.rows.push_back({label, name, ReportNumber(n / runs),
                              ReportNumber(total > 0 ? 100 * n / total : 0),
                              std::to_string(cell.runs.size())});
    }
  }
  if (f.table.rows.empty()) {
    f.omitted =
        "No done run traced its system calls (add `traces: [syscalls, ...]` "
        "to the sweep file, as examples/sweeps/applsci23-traces.yaml does; "
        "docs/traces.md).";
  } else {
    f.note =
        "System calls per run of the workload's processes (tracepoint "
        "raw_syscalls:sys_enter), the most frequent of every cell.";
  }
  return f;
}

FigureTable TraceWritebackFigure(const ReportInputs& in) {
  FigureTable f;
  f.name = "trace_writeback";
  f.table.header = {"cell", "reason", "writebacks_per_run", "share_percent",
                    "interval_mean_s", "interval_sd_s", "runs"};
  for (const auto& [label, cell] : CellsOf(in, "writeback")) {
    const double runs = static_cast<double>(cell.runs.size());
    auto all = cell.count.find("all");
    const double total = all == cell.count.end() ? 0 : all->second;
    std::vector<std::string> names = {"all"};
    for (const auto& [name, n] : cell.count) {
      if (name != "all") names.push_back(name);
    }
    for (const std::string& name : names) {
      auto it = cell.count.find(name);
      if (it == cell.count.end()) continue;
      auto means = cell.interval_mean.find(name);
      auto sds = cell.interval_sd.find(name);
      f.table.rows.push_back(
          {label, name, ReportNumber(it->second / runs),
           name == "all" || total <= 0
               ? ""
               : ReportNumber(100 * it->second / total),
           means == cell.interval_mean.end()
               ? ""
               : ReportNumber(MeanOf(means->second)),
           sds == cell.interval_sd.end() ? ""
                                         : ReportNumber(MeanOf(sds->second)),
           std::to_string(cell.runs.size())});
    }
  }
  if (f.table.rows.empty()) {
    f.omitted =
        "No done run traced write-backs (add `traces: [writeback, ...]` to "
        "the sweep file, as examples/sweeps/applsci23-traces.yaml does; "
        "docs/traces.md).";
  } else {
    f.note =
        "Write-backs the kernel started while each run ran (system-wide, "
        "writeback:writeback_start): the mean interval between them "
        "(mean over runs of each run's mean, and of its standard "
        "deviation), and their reasons.";
  }
  return f;
}

}  // namespace powersweep
