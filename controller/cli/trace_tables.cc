#include "controller/cli/trace_tables.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "controller/cli/report_figures.h"

namespace powersweep {
namespace {

int KindOrder(const std::string& kind) {
  static const std::vector<std::string> kOrder = {
      "syscalls", "block", "writeback", "page_faults", "sched"};
  auto it = std::find(kOrder.begin(), kOrder.end(), kind);
  return static_cast<int>(it - kOrder.begin());
}

struct Figure {
  std::set<int64_t> runs;
  double count = 0;
  double bytes = 0;
  double interval_mean = 0;
  double interval_sd = 0;
  int intervals = 0;  // runs with an interval
};

struct Cell {
  std::string label;
  std::set<int64_t> runs;  // runs with traces in their current attempt
  std::map<std::string, std::set<int64_t>> missing_runs;  // kind -> runs
  // (kind, name, scope) -> figure
  std::map<std::tuple<std::string, std::string, std::string>, Figure> figures;
  // (kind, reason) -> runs
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> missing;
};

std::string Num(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

}  // namespace

Table TracesTable(const std::vector<v1::RunStatus>& runs,
                  const std::vector<TraceCsvRow>& traces, int top) {
  std::map<int64_t, std::pair<int32_t, std::string>> run_cell;  // id -> attempt, label
  std::vector<std::string> order;
  for (const v1::RunStatus& r : runs) {
    const std::string label = FigureCellLabel(r.spec());
    run_cell[r.spec().run_id()] = {r.spec().attempt(), label};
    if (std::find(order.begin(), order.end(), label) == order.end()) {
      order.push_back(label);
    }
  }
  std::map<std::string, Cell> cells;
  for (const TraceCsvRow& t : traces) {
    auto it = run_cell.find(t.run_id);
    if (it == run_cell.end() || it->second.first != t.attempt) continue;
    Cell& cell = cells[it->second.second];
    cell.label = it->second.second;
    cell.runs.insert(t.run_id);
    if (!t.missing_reason.empty()) {
      cell.missing[{t.kind, t.missing_reason}].insert(t.run_id);
      cell.missing_runs[t.kind].insert(t.run_id);
      continue;
    }
    Figure& f = cell.figures[{t.kind, t.name, t.scope}];
    f.runs.insert(t.run_id);
    f.count += t.count.value_or(0);
    f.bytes += t.bytes.value_or(0);
    if (t.interval_mean_s) {
      f.interval_mean += *t.interval_mean_s;
      f.interval_sd += t.interval_sd_s.value_or(0);
      ++f.intervals;
    }
  }

  Table table;
  table.header = {"cell",  "kind",    "name",      "scope",     "runs",
                  "count/run", "share %", "MiB/run", "interval_s"};
  table.numeric = {false, false, false, false, true, true, true, true, true};
  table.mean_sd = {false, false, false, false, false,
                   false, false, false, true};
  for (const std::string& label : order) {
    auto c = cells.find(label);
    if (c == cells.end()) continue;
    const Cell& cell = c->second;
    // Per kind, the runs it was collected for: a run without a row of the
    // kind had none of it (0), a run for which it is missing does not
    // count.
    auto runs_of = [&](const std::string& kind) {
      auto m = cell.missing_runs.find(kind);
      return cell.runs.size() -
             (m == cell.missing_runs.end() ? 0 : m->second.size());
    };
    std::map<std::string, double> kind_total;
    double writeback_all = 0;
    for (const auto& [key, f] : cell.figures) {
      const auto& [kind, name, scope] = key;
      if (kind == "writeback") {
        if (name == "all") writeback_all = f.count;
      } else {
        kind_total[kind] += f.count;
      }
    }
    std::vector<std::pair<std::tuple<std::string, std::string, std::string>,
                          const Figure*>>
        rows;
    for (const auto& [key, f] : cell.figures) rows.push_back({key, &f});
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a,
                                                  const auto& b) {
      const std::string& ka = std::get<0>(a.first);
      const std::string& kb = std::get<0>(b.first);
      if (ka != kb) return KindOrder(ka) < KindOrder(kb);
      const bool all_a = ka == "writeback" && std::get<1>(a.first) == "all";
      const bool all_b = kb == "writeback" && std::get<1>(b.first) == "all";
      if (all_a != all_b) return all_a;
      return a.second->count > b.second->count;
    });
    int syscalls_shown = 0;
    for (const auto& [key, f] : rows) {
      const auto& [kind, name, scope] = key;
      if (kind == "syscalls" && top > 0 && syscalls_shown++ >= top) continue;
      std::string share = "-";
      if (kind == "syscalls" && kind_total[kind] > 0) {
        share = Num(100 * f->count / kind_total[kind], 1);
      } else if (kind == "writeback" && name != "all" && writeback_all > 0) {
        share = Num(100 * f->count / writeback_all, 1);
      }
      const double n = static_cast<double>(runs_of(kind));
      const std::string mib =
          kind == "block" ? Num(f->bytes / n / (1024.0 * 1024.0), 2) : "-";
      std::string interval = "-";
      if (f->intervals > 0) {
        interval = absl::StrCat(Num(f->interval_mean / f->intervals, 3), " ± ",
                                Num(f->interval_sd / f->intervals, 3));
      }
      table.rows.push_back({cell.label, kind, name, scope,
                            absl::StrCat(runs_of(kind)),
                            Num(f->count / n, 1), share, mib, interval});
    }
    for (const auto& [key, ids] : cell.missing) {
      table.rows.push_back({cell.label, key.first,
                            absl::StrCat("missing: ", key.second), "-",
                            absl::StrCat(ids.size()), "-", "-", "-", "-"});
    }
  }
  return table;
}

int CmdTraces(v1::Control::StubInterface* stub, const CliOptions& opt, int top,
              std::ostream& out, std::ostream& err) {
  v1::ListRunsRequest list;
  list.set_sweep_id(opt.sweep_id);
  v1::ListRunsResponse runs;
  {
    auto ctx = RpcContext(60);
    grpc::Status st = stub->ListRuns(ctx.get(), list, &runs);
    if (!st.ok()) return ReportRpcError(st, opt, err);
  }
  v1::ExportRequest req;
  req.set_sweep_id(opt.sweep_id);
  auto ctx = RpcContext(600);
  auto reader = stub->Export(ctx.get(), req);
  TraceCsvReader traces;
  v1::ExportChunk chunk;
  while (reader->Read(&chunk)) {
    if (chunk.table() == "traces") traces.Feed(chunk.csv());
  }
  grpc::Status st = reader->Finish();
  if (!st.ok()) return ReportRpcError(st, opt, err);
  if (absl::Status s = traces.Finish(); !s.ok()) {
    err << "error: " << s.message() << "\n";
    return kExitFailed;
  }
  if (traces.rows().empty()) {
    err << "sweep " << opt.sweep_id
        << " has no traces: add `traces: [syscalls, block, writeback, "
           "page_faults, sched]` to its sweep file (docs/traces.md)\n";
    return kExitFailed;
  }
  std::vector<v1::RunStatus> list_runs(runs.runs().begin(), runs.runs().end());
  out << RenderTable(TracesTable(list_runs, traces.rows(), top), opt.format);
  return kExitOk;
}

}  // namespace powersweep
