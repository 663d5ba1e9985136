#include "controller/cli/run_tables.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/power_mode_text.h"

namespace powersweep {

namespace {

std::string Fixed(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

bool Finished(const v1::RunStatus& r) {
  return r.state() == v1::RUN_STATE_DONE;
}

// Everything that defines a cell of the matrix, as printable strings.
// "native", "container", or "container x4" for co-located tenants.
std::string RuntimeCell(const v1::RunSpec& s) {
  std::string text = RuntimeText(s.runtime());
  if (s.tenants() > 1) absl::StrAppend(&text, " x", s.tenants());
  return text;
}

// "lenet5/fashion-mnist"; "resnet50/imagenet@160" with an input size.
std::string WorkloadCell(const v1::WorkloadSpec& w) {
  if (w.model().empty()) return "-";
  std::string text = absl::StrCat(w.model(), "/", w.dataset());
  if (w.input_size() > 0) absl::StrAppend(&text, "@", w.input_size());
  return text;
}

// The loader's workers, then the knobs that differ from the defaults:
// "2", "2 depth=8", "0 drop", "4 preload".
std::string LoaderCell(const v1::WorkloadSpec& w) {
  std::string text = std::to_string(w.loader_workers());
  if (w.prefetch_depth() > 0) absl::StrAppend(&text, " depth=", w.prefetch_depth());
  if (w.page_cache() == v1::PAGE_CACHE_DROP) absl::StrAppend(&text, " drop");
  if (w.preload()) absl::StrAppend(&text, " preload");
  return text;
}

std::vector<std::string> CellKey(const v1::RunStatus& r) {
  const auto& s = r.spec();
  return {s.device_class(),
          WorkloadCell(s.workload()),
          TaskText(s.workload().task()),
          std::to_string(s.workload().batch_size()),
          LoaderCell(s.workload()),
          PowerModeText(s.power_mode(), "as is"),
          RuntimeCell(s)};
}

struct Stat {
  double sum = 0, sum_sq = 0;
  int n = 0;
  void Add(double v) { sum += v; sum_sq += v * v; ++n; }
  double Mean() const { return n ? sum / n : 0; }
  double Sd() const {
    if (n < 2) return 0;
    const double var = (sum_sq - sum * sum / n) / (n - 1);
    return var > 0 ? std::sqrt(var) : 0;
  }
  std::string Show(double scale, int digits) const {
    if (n == 0) return "-";
    if (n == 1) return Fixed(Mean() * scale, digits);
    return absl::StrCat(Fixed(Mean() * scale, digits), " ± ",
                        Fixed(Sd() * scale, digits));
  }
};

}  // namespace

Table RunsTable(const std::vector<v1::RunStatus>& runs) {
  Table t;
  t.header = {"run", "rep", "attempt", "device", "class", "model", "task",
              "batch",
              "workers", "mode", "runtime", "state", "minibatches",
              "ms_per_mb", "stall_pct", "samples_per_s", "tokens_per_s",
              "ttft_ms", "ms_per_token", "gflop_s", "launches_per_s",
              "loss_first", "loss_last",
              "cpu_util_pct", "telemetry", "duration_s", "energy_j",
              "power_w", "incr_energy_j", "baseload_run", "energy_source",
              "other_cpu", "host_busy", "reason"};
  t.numeric = {true,  true,  true,  false, false, false, false, true,
               false, false, false, false, true,  true,  true,  true,
               true,  true,  true,  true,  true,  true,  true,  true,
               true,  true,  true,  true,  true,  true,  false, true,
               false, false};
  for (const auto& r : runs) {
    const auto& s = r.spec();
    const auto& m = r.summary();
    const bool has = m.minibatches() > 0;
    const double mb = m.mean_minibatch_s();
    const bool energy = m.energy_j() > 0;
    t.rows.push_back(
        {std::to_string(s.run_id()),
         std::to_string(s.repetition()),
         // Attempt 2 and later: a retry or a rerun (earlier attempts' data
         // stay in the database).
         std::to_string(std::max(1, s.attempt())),
         r.device_id().empty() ? "-" : r.device_id(),
         s.device_class(),
         WorkloadCell(s.workload()),
         TaskText(s.workload().task()),
         std::to_string(s.workload().batch_size()),
         LoaderCell(s.workload()),
         PowerModeText(s.power_mode(), "as is"),
         RuntimeCell(s),
         StateText(r.state()),
         std::to_string(m.minibatches()),
         has ? Fixed(mb * 1e3, 2) : "-",
         has && mb > 0 ? Fixed(100 * m.mean_stall_s() / mb, 1) : "-",
         has ? Fixed(m.samples_per_s(), 0) : "-",
         // Sequence models only (MinibatchRecord.tokens, ttft_s,
         // per_token_s); "-" for image models.
         m.tokens_per_s() > 0 ? Fixed(m.tokens_per_s(), 0) : "-",
         m.mean_ttft_s() > 0 ? Fixed(m.mean_ttft_s() * 1e3, 1) : "-",
         m.mean_per_token_s() > 0 ? Fixed(m.mean_per_token_s() * 1e3, 2)
                                  : "-",
         // Kernel runs only (gemm, conv, rnn); "-" for networks.
         m.kernel_gflop_per_s() > 0 ? Fixed(m.kernel_gflop_per_s(), 2) : "-",
         m.kernel_launches_per_s() > 0 ? Fixed(m.kernel_launches_per_s(), 0)
                                       : "-",
         has && m.has_first_loss() ? Fixed(m.first_loss(), 3) : "-",
         has && m.has_last_loss() ? Fixed(m.last_loss(), 3) : "-",
         m.telemetry_samples() > 0 ? Fixed(100 * m.mean_cpu_util(), 0) : "-",
         std::to_string(m.telemetry_samples()),
         m.duration_s() > 0 ? Fixed(m.duration_s(), 2) : "-",
         energy ? Fixed(m.energy_j(), 1) : "-",
         energy && m.mean_power_mw() > 0 ? Fixed(m.mean_power_mw() / 1e3, 2)
                                         : "-",
         m.baseload_run_id() > 0 && s.workload().task() != v1::TASK_BASELOAD
             ? Fixed(m.incremental_energy_j(), 1)
             : "-",
         m.baseload_run_id() > 0 && s.workload().task() != v1::TASK_BASELOAD
             ? std::to_string(m.baseload_run_id())
             : "-",
         energy ? ProvenanceText(m.energy_provenance()) : "-",
         // Cores other processes kept busy during the run (host_load.h),
         // and whether that makes its timings suspect.
         m.has_other_cpu_cores() ? Fixed(m.other_cpu_cores(), 2) : "-",
         !m.has_other_cpu_cores()                 ? "-"
         : m.other_cpu_cores() >= kBusyHostCores ? "yes"
                                                  : "no",
         r.reason()});
  }
  return t;
}

Table SummaryTable(const std::vector<v1::RunStatus>& runs) {
  struct Cell {
    int runs = 0, done = 0, failed = 0;
    Stat ms, stall, tput, gflops, launches, cpu, energy, power, incremental;
    std::set<std::string> sources;
  };
  std::map<std::vector<std::string>, Cell> cells;
  std::vector<std::vector<std::string>> order;
  bool any_kernel = false;  // kernel columns only when a kernel run is done
  for (const auto& r : runs) {
    auto key = CellKey(r);
    auto [it, inserted] = cells.try_emplace(key);
    if (inserted) order.push_back(key);
    Cell& c = it->second;
    ++c.runs;
    if (r.state() == v1::RUN_STATE_FAILED) ++c.failed;
    if (!Finished(r) || r.summary().minibatches() == 0) continue;
    ++c.done;
    const auto& m = r.summary();
    c.ms.Add(m.mean_minibatch_s());
    c.stall.Add(m.mean_minibatch_s() > 0
                    ? m.mean_stall_s() / m.mean_minibatch_s()
                    : 0);
    c.tput.Add(m.samples_per_s());
    if (m.kernel_gflop_per_s() > 0) {
      c.gflops.Add(m.kernel_gflop_per_s());
      c.launches.Add(m.kernel_launches_per_s());
      any_kernel = true;
    }
    c.cpu.Add(m.mean_cpu_util());
    if (m.energy_j() > 0) {
      c.energy.Add(m.energy_j());
      if (m.mean_power_mw() > 0) c.power.Add(m.mean_power_mw() / 1e3);
      if (m.baseload_run_id() > 0) c.incremental.Add(m.incremental_energy_j());
      c.sources.insert(ProvenanceText(m.energy_provenance()));
    }
  }
  Table t;
  t.header = {"class", "model", "task", "batch", "workers", "mode", "runtime",
              "done", "failed", "ms_per_mb", "stall_pct", "samples_per_s",
              "cpu_util_pct", "energy_j", "power_w", "incr_energy_j",
              "energy_source"};
  t.numeric = {false, false, false, true, false, false, false, true, true,
               true, true, true, true, true, true, true, false};
  t.mean_sd = {false, false, false, false, false, false, false, false, false,
               true, true, true, true, true, true, true, false};
  if (any_kernel) {
    // After samples_per_s (index 11): achieved GFLOP/s and launches per s.
    t.header.insert(t.header.begin() + 12, {"gflop_s", "launches_per_s"});
    t.numeric.insert(t.numeric.begin() + 12, {true, true});
    t.mean_sd.insert(t.mean_sd.begin() + 12, {true, true});
  }
  for (const auto& key : order) {
    const Cell& c = cells[key];
    std::vector<std::string> row = key;
    row.push_back(absl::StrCat(c.done, "/", c.runs));
    row.push_back(std::to_string(c.failed));
    row.push_back(c.ms.Show(1e3, 2));
    row.push_back(c.stall.Show(100, 1));
    row.push_back(c.tput.Show(1, 0));
    if (any_kernel) {
      row.push_back(c.gflops.Show(1, 2));
      row.push_back(c.launches.Show(1, 0));
    }
    row.push_back(c.cpu.Show(100, 0));
    row.push_back(c.energy.Show(1, 1));
    row.push_back(c.power.Show(1, 2));
    row.push_back(c.incremental.Show(1, 1));
    row.push_back(c.sources.empty() ? "-" : absl::StrJoin(c.sources, "+"));
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace powersweep
