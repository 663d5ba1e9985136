#include "controller/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/analysis/stats.h"

namespace powersweep {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::optional<double> Scaled(const std::optional<double>& v, double factor) {
  if (!v.has_value()) return std::nullopt;
  return *v * factor;
}

std::string TaskName(v1::Task task) {
  switch (task) {
    case v1::TASK_TRAIN:
      return "train";
    case v1::TASK_INFER:
      return "infer";
    case v1::TASK_BASELOAD:
      return "baseload";
    default:
      return "task?";
  }
}

std::string JoinSet(const std::set<std::string>& values) {
  if (values.empty()) return "(none)";
  return absl::StrJoin(values, ", ");
}

// Numbers for the table: 4 significant digits, plain notation for large
// values (counts, bytes) rather than exponents.
std::string Number(double v) {
  if (std::fabs(v) >= 1e4) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.4g", v);
}

// "+1.25"; rounding noise around 0 prints as "+0.00", never "-0.00".
std::string Percent(double v) {
  double rounded = std::round(v * 100) / 100;
  if (rounded == 0) rounded = 0;  // drops the sign of -0
  return absl::StrFormat("%+.2f", rounded);
}

std::string PValue(double p) {
  if (p >= 0.001) return absl::StrFormat("%.3f", p);
  if (p == 0) return "0";
  return absl::StrFormat("%.1e", p);
}

std::string Interval(bool has, double low, double high,
                     std::string (*format)(double)) {
  if (!has) return "-";
  return absl::StrCat("[", format(low), ", ", format(high), "]");
}

SideStats ToSideStats(const stats::SampleSummary& s) {
  SideStats out;
  out.n = s.n;
  out.mean = s.mean;
  out.has_ci = s.has_ci;
  out.ci_low = s.ci_low;
  out.ci_high = s.ci_high;
  return out;
}

MetricComparison CompareMetric(const MetricInfo& info,
                               const std::vector<double>& baseline,
                               const std::vector<double>& other) {
  MetricComparison c;
  c.info = info;
  c.baseline = ToSideStats(stats::Summarize(baseline, kConfidenceLevel));
  c.other = ToSideStats(stats::Summarize(other, kConfidenceLevel));
  const stats::WelchTest w =
      stats::Welch(baseline, other, kConfidenceLevel, kSignificanceAlpha);
  c.has_difference = w.has_difference;
  c.has_percent = w.has_percent;
  c.difference_percent = w.difference_percent;
  c.has_percent_ci = w.has_percent && w.tested;
  c.percent_ci_low = w.ci_low_percent;
  c.percent_ci_high = w.ci_high_percent;
  c.tested = w.tested;
  c.p_value = w.p_value;
  c.significant = w.significant;
  return c;
}

struct CellRuns {
  v1::RunSpec key;
  std::vector<const RunMetrics*> baseline;
  std::vector<const RunMetrics*> other;
};

void AddCellWarnings(CompareBy by, const CellRuns& runs,
                     CellComparison* cell) {
  const std::string b = BaselineLabel(by);
  const std::string o = OtherLabel(by);
  for (const auto& [label, side] :
       {std::make_pair(b, &runs.baseline), std::make_pair(o, &runs.other)}) {
    if (side->empty()) {
      cell->warnings.push_back(
          absl::StrCat("no ", label, " runs: nothing to compare"));
    } else if (side->size() < 2) {
      cell->warnings.push_back(absl::StrCat(
          "only 1 ", label, " run: no confidence interval or test"));
    }
  }
  if (runs.baseline.empty() || runs.other.empty()) return;

  auto collect = [](const std::vector<const RunMetrics*>& side,
                    std::string RunMetrics::*field, bool* missing) {
    std::set<std::string> out;
    for (const RunMetrics* r : side) {
      if ((r->*field).empty()) {
        *missing = true;
      } else {
        out.insert(r->*field);
      }
    }
    return out;
  };
  for (const auto& [what, field] :
       {std::make_pair(std::string("binary"), &RunMetrics::binary_fingerprint),
        std::make_pair(std::string("framework"),
                       &RunMetrics::framework_fingerprint)}) {
    bool missing = false;
    const std::set<std::string> fb = collect(runs.baseline, field, &missing);
    const std::set<std::string> fo = collect(runs.other, field, &missing);
    if (fb != fo || fb.size() > 1) {
      cell->warnings.push_back(absl::StrCat(
          "provenance differs: ", what, " fingerprint ", b, " ", JoinSet(fb),
          " vs ", o, " ", JoinSet(fo),
          "; the difference may come from the build, not the ", CompareByName(by)));
    } else if (missing) {
      cell->warnings.push_back(absl::StrCat(
          "provenance unknown: some runs have no ", what,
          " fingerprint, so the comparison cannot be called clean"));
    }
  }

  std::set<std::string> db, dev_o;
  for (const RunMetrics* r : runs.baseline) db.insert(r->device_id);
  for (const RunMetrics* r : runs.other) dev_o.insert(r->device_id);
  if (db != dev_o) {
    cell->warnings.push_back(absl::StrCat("sides ran on different devices: ",
                                          b, " on ", JoinSet(db), ", ", o,
                                          " on ", JoinSet(dev_o)));
  }
}

CellComparison CompareCell(CompareBy by, const CellRuns& runs) {
  CellComparison cell;
  cell.key = runs.key;
  cell.label = CellLabel(runs.key);
  for (const RunMetrics* r : runs.baseline) {
    cell.baseline_run_ids.push_back(r->run_id);
  }
  for (const RunMetrics* r : runs.other) cell.other_run_ids.push_back(r->run_id);
  for (const MetricInfo& info : AllMetrics()) {
    std::vector<double> b, o;
    for (const RunMetrics* r : runs.baseline) {
      if (auto v = MetricValue(*r, info.metric)) b.push_back(*v);
    }
    for (const RunMetrics* r : runs.other) {
      if (auto v = MetricValue(*r, info.metric)) o.push_back(*v);
    }
    if (b.empty() && o.empty()) continue;
    cell.metrics.push_back(CompareMetric(info, b, o));
  }
  AddCellWarnings(by, runs, &cell);
  return cell;
}

}  // namespace

absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "runtime") return CompareBy::kRuntime;
  if (lower == "page_cache" || lower == "page-cache") {
    return CompareBy::kPageCache;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--by: unknown dimension \"", name,
      "\" (supported: runtime, page_cache)"));
}

std::string CompareByName(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "runtime";
    case CompareBy::kPageCache:
      return "page_cache";
  }
  return "?";
}

std::string BaselineLabel(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "native";
    case CompareBy::kPageCache:
      return "keep";
  }
  return "baseline";
}

std::string OtherLabel(CompareBy by) {
  switch (by) {
    case CompareBy::kRuntime:
      return "container";
    case CompareBy::kPageCache:
      return "drop";
  }
  return "other";
}

std::optional<Side> SideOf(CompareBy by, const v1::RunSpec& spec) {
  switch (by) {
    case CompareBy::kRuntime:
      switch (spec.runtime()) {
        case v1::RUNTIME_UNSPECIFIED:
        case v1::RUNTIME_NATIVE:
          return Side::kBaseline;
        case v1::RUNTIME_CONTAINER:
          return Side::kOther;
        default:
          return std::nullopt;
      }
    case CompareBy::kPageCache:
      // Baseload runs have no page-cache policy: on neither side.
      if (spec.workload().task() == v1::TASK_BASELOAD) return std::nullopt;
      return spec.workload().page_cache() == v1::PAGE_CACHE_DROP
                 ? Side::kOther
                 : Side::kBaseline;
  }
  return std::nullopt;
}

v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec) {
  v1::RunSpec key = spec;
  key.clear_run_id();
  key.clear_sweep_id();
  key.clear_repetition();
  key.clear_attempt();
  switch (by) {
    case CompareBy::kRuntime:
      key.clear_runtime();
      key.clear_container_image();  // only container runs name one
      break;
    case CompareBy::kPageCache:
      key.mutable_workload()->clear_page_cache();
      break;
  }
  return key;
}

std::string CellLabel(const v1::RunSpec& key) {
  const v1::WorkloadSpec& w = key.workload();
  std::string workload;
  if (w.task() == v1::TASK_BASELOAD) {
    workload = "baseload";
  } else {
    workload = absl::StrCat(w.model(), "/", w.dataset(), " ", TaskName(w.task()),
                            " bs=", w.batch_size(), " workers=", w.loader_workers());
  }
  const v1::PowerMode& pm = key.power_mode();
  std::vector<std::string> mode;
  if (!pm.preset().empty()) mode.push_back(pm.preset());
  if (pm.cpu_cores() > 0) mode.push_back(absl::StrCat("cores=", pm.cpu_cores()));
  if (pm.cpu_freq_khz() > 0) {
    mode.push_back(absl::StrCat("cpu=", pm.cpu_freq_khz() / 1000, "MHz"));
  }
  if (pm.gpu_freq_hz() > 0) {
    mode.push_back(absl::StrCat("gpu=", pm.gpu_freq_hz() / 1000000, "MHz"));
  }
  if (pm.mem_freq_hz() > 0) {
    mode.push_back(absl::StrCat("mem=", pm.mem_freq_hz() / 1000000, "MHz"));
  }
  if (mode.empty()) mode.push_back("default mode");
  return absl::StrCat(workload, " | ", key.device_class(), " | ",
                      absl::StrJoin(mode, " "));
}

const std::vector<MetricInfo>& AllMetrics() {
  static const std::vector<MetricInfo>* const kMetrics =
      new std::vector<MetricInfo>{
          {Metric::kMinibatchTime, "minibatch time", "ms"},
          {Metric::kStallTime, "stall time", "ms"},
          {Metric::kComputeTime, "compute time", "ms"},
          {Metric::kOverheadTime, "overhead time", "ms"},
          {Metric::kThroughput, "throughput", "samples/s"},
          {Metric::kEnergy, "energy", "J"},
          {Metric::kIncrementalEnergy, "incremental energy", "J"},
          {Metric::kMedianCpuUtil, "median CPU util", "%"},
          {Metric::kMedianGpuUtil, "median GPU util", "%"},
          {Metric::kMedianPower, "median power", "W"},
          {Metric::kPeakRss, "peak RSS", "MiB"},
          {Metric::kMedianRss, "median RSS", "MiB"},
          {Metric::kPeakMemUsed, "peak memory used", "MiB"},
          {Metric::kMedianMemUsed, "median memory used", "MiB"},
          {Metric::kPageFaults, "page faults", "count"},
          {Metric::kMajorPageFaults, "major page faults", "count"},
          {Metric::kTenantPageFaults, "tenant page faults", "count"},
          {Metric::kTenantMajorPageFaults, "tenant major page faults", "count"},
          {Metric::kPagesWrittenBack, "pages written back", "pages"},
          {Metric::kPagedOut, "paged out", "KiB"},
          {Metric::kPeakDirtyPages, "peak dirty", "pages"},
          {Metric::kPeakWritebackPages, "peak write-back", "pages"},
      };
  return *kMetrics;
}

std::optional<double> MetricValue(const RunMetrics& run, Metric metric) {
  switch (metric) {
    case Metric::kMinibatchTime:
      return Scaled(run.mean_minibatch_s, 1000);
    case Metric::kStallTime:
      return Scaled(run.mean_stall_s, 1000);
    case Metric::kComputeTime:
      return Scaled(run.mean_compute_s, 1000);
    case Metric::kOverheadTime:
      return Scaled(run.mean_overhead_s, 1000);
    case Metric::kThroughput:
      return run.samples_per_s;
    case Metric::kEnergy:
      return run.energy_j;
    case Metric::kIncrementalEnergy:
      return run.incremental_energy_j;
    case Metric::kMedianCpuUtil:
      return Scaled(run.median_cpu_util, 100);
    case Metric::kMedianGpuUtil:
      return Scaled(run.median_gpu_util, 100);
    case Metric::kMedianPower:
      return run.median_power_w;
    case Metric::kPeakRss:
      return Scaled(run.peak_rss_bytes, 1 / kMiB);
    case Metric::kMedianRss:
      return Scaled(run.median_rss_bytes, 1 / kMiB);
    case Metric::kPeakMemUsed:
      return Scaled(run.peak_mem_used_bytes, 1 / kMiB);
    case Metric::kMedianMemUsed:
      return Scaled(run.median_mem_used_bytes, 1 / kMiB);
    case Metric::kPageFaults:
      return run.page_faults;
    case Metric::kMajorPageFaults:
      return run.major_page_faults;
    case Metric::kTenantPageFaults:
      return run.tenant_page_faults;
    case Metric::kTenantMajorPageFaults:
      return run.tenant_major_page_faults;
    case Metric::kPagesWrittenBack:
      return run.pages_written_back;
    case Metric::kPagedOut:
      return run.paged_out_kib;
    case Metric::kPeakDirtyPages:
      return run.peak_dirty_pages;
    case Metric::kPeakWritebackPages:
      return run.peak_writeback_pages;
  }
  return std::nullopt;
}

Comparison CompareRuns(const std::vector<RunMetrics>& runs, CompareBy by) {
  Comparison out;
  out.by = by;
  std::vector<const RunMetrics*> sorted;
  int not_done = 0;
  for (const RunMetrics& r : runs) {
    if (r.state != v1::RUN_STATE_DONE) {
      ++not_done;
      continue;
    }
    sorted.push_back(&r);
  }
  if (not_done > 0) {
    out.warnings.push_back(absl::StrCat(
        not_done, " runs that are not done were left out"));
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RunMetrics* a, const RunMetrics* b) {
                     return a->run_id < b->run_id;
                   });
  std::vector<CellRuns> cells;
  std::map<std::string, size_t> index;  // serialized key -> cells[i]
  std::vector<int64_t> sideless;
  for (const RunMetrics* r : sorted) {
    const std::optional<Side> side = SideOf(by, r->spec);
    if (!side.has_value()) {
      sideless.push_back(r->run_id);
      continue;
    }
    v1::RunSpec key = CellKey(by, r->spec);
    const std::string serialized = key.SerializeAsString();
    auto [it, inserted] = index.emplace(serialized, cells.size());
    if (inserted) {
      cells.push_back(CellRuns{});
      cells.back().key = std::move(key);
    }
    CellRuns& cell = cells[it->second];
    (*side == Side::kBaseline ? cell.baseline : cell.other).push_back(r);
  }
  if (!sideless.empty()) {
    out.warnings.push_back(absl::StrCat(
        "runs on neither side of the ", CompareByName(by),
        " comparison were left out: ", absl::StrJoin(sideless, ", ")));
  }
  std::map<std::string, int> label_count;
  for (const CellRuns& c : cells) {
    out.cells.push_back(CompareCell(by, c));
    ++label_count[out.cells.back().label];
  }
  // Cells that differ only in fields the label leaves out (stop
  // conditions, seed, threads, ...) get their first run id appended.
  for (CellComparison& cell : out.cells) {
    if (label_count[cell.label] < 2) continue;
    const int64_t first = cell.baseline_run_ids.empty()
                              ? cell.other_run_ids.front()
                              : cell.baseline_run_ids.front();
    absl::StrAppend(&cell.label, " #", first);
  }
  return out;
}

absl::StatusOr<Comparison> CompareSweep(Store* store, int64_t sweep_id,
                                        CompareBy by) {
  PS_ASSIGN_OR_RETURN(std::vector<RunMetrics> runs,
                      LoadSweepRunMetrics(store, sweep_id));
  Comparison c = CompareRuns(runs, by);
  if (c.cells.empty()) {
    c.warnings.push_back(
        absl::StrCat("sweep ", sweep_id, " has no done runs to compare"));
  }
  return c;
}

ComparisonTable ToTable(const Comparison& comparison) {
  const std::string b = BaselineLabel(comparison.by);
  const std::string o = OtherLabel(comparison.by);
  ComparisonTable t;
  t.header = {"cell",
              "metric",
              "unit",
              absl::StrCat("n ", b),
              absl::StrCat("mean ", b),
              absl::StrCat("95% CI ", b),
              absl::StrCat("n ", o),
              absl::StrCat("mean ", o),
              absl::StrCat("95% CI ", o),
              "diff %",
              "95% CI diff %",
              "p (Welch)",
              "significant"};
  t.numeric = {false, false, false, true,  true,  false, true,
               true,  false, true,  false, true,  false};
  for (const CellComparison& cell : comparison.cells) {
    for (const MetricComparison& m : cell.metrics) {
      auto mean = [](const SideStats& s) {
        return s.n > 0 ? Number(s.mean) : std::string("-");
      };
      t.rows.push_back({
          cell.label,
          m.info.name,
          m.info.unit,
          absl::StrCat(m.baseline.n),
          mean(m.baseline),
          Interval(m.baseline.has_ci, m.baseline.ci_low, m.baseline.ci_high,
                   &Number),
          absl::StrCat(m.other.n),
          mean(m.other),
          Interval(m.other.has_ci, m.other.ci_low, m.other.ci_high, &Number),
          m.has_percent ? Percent(m.difference_percent) : "-",
          Interval(m.has_percent_ci, m.percent_ci_low, m.percent_ci_high,
                   &Percent),
          m.tested ? PValue(m.p_value) : "-",
          m.tested ? (m.significant ? "yes" : "no") : "-",
      });
    }
  }
  return t;
}

std::vector<std::string> WarningLines(const Comparison& comparison) {
  std::vector<std::string> lines = comparison.warnings;
  for (const CellComparison& cell : comparison.cells) {
    for (const std::string& w : cell.warnings) {
      lines.push_back(absl::StrCat(cell.label, ": ", w));
    }
  }
  return lines;
}

}  // namespace powersweep
