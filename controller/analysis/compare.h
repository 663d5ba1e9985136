// Comparison of a sweep's runs along one dimension (`powersweep compare
// --sweep ID --by runtime`): native vs container for every cell.
//
// Cells: done runs are grouped into cells equal in everything but the
// compared dimension, the repetition and the attempt (run and sweep ids
// aside): device class, workload (model, dataset, task, batch size, loader
// workers, stop conditions, seed, threads), power mode, telemetry rate and
// timeout. Within a cell, each run falls on the baseline side (runtime:
// native; RUNTIME_UNSPECIFIED counts as native, as the sweep defaults do)
// or the other side (container). Cells are ordered by their first run id.
//
// Per cell and metric (the metrics of run_metrics.h, each where the runs
// have it): both sides' n, mean and t-based 95% confidence interval of the
// mean, the difference other - baseline in percent of the baseline mean
// with its 95% CI, the p-value of Welch's t-test and whether it is
// significant at 0.05 (stats.h says why Welch: few repetitions per side
// and no reason to assume equal variances). A metric none of the cell's
// runs has is left out.
//
// Warnings per cell: the two sides' provenance differs (binary or
// framework fingerprint: the difference may come from the build, not the
// runtime), a side has fewer than 2 runs (no interval, no test) or none,
// the sides ran on different devices.
//
// Values are in display units (MetricInfo::unit): ms, MiB, %, W, J,
// counts. Pure functions except CompareSweep (reads the store);
// thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/analysis/run_metrics.h"
#include "powersweep/v1/run.pb.h"
#include "storage/store.h"

namespace powersweep {

// The dimension compared. Only the runtime for now; another dimension
// needs a name, its two sides (SideOf) and its field cleared in CellKey.
// kRuntime: native (baseline) vs container. kPageCache: the data set's
// pages kept in the page cache between epochs (baseline) vs dropped.
enum class CompareBy { kRuntime, kPageCache };

// "runtime" -> kRuntime, "page_cache" -> kPageCache; InvalidArgument
// naming --by otherwise.
absl::StatusOr<CompareBy> ParseCompareBy(absl::string_view name);
std::string CompareByName(CompareBy by);                  // "runtime"
std::string BaselineLabel(CompareBy by);                  // "native"
std::string OtherLabel(CompareBy by);                     // "container"

enum class Side { kBaseline, kOther };

// The run's side; nullopt when the run is on neither (e.g. an unknown
// runtime value).
std::optional<Side> SideOf(CompareBy by, const v1::RunSpec& spec);

// The run's spec with the compared dimension, repetition, attempt, run id
// and sweep id cleared: runs with equal keys are in one cell.
v1::RunSpec CellKey(CompareBy by, const v1::RunSpec& spec);

// "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN cores=4"
std::string CellLabel(const v1::RunSpec& key);

enum class Metric {
  kMinibatchTime,
  kStallTime,
  kComputeTime,
  kOverheadTime,
  kThroughput,
  kEnergy,
  kIncrementalEnergy,
  kMedianCpuUtil,
  kMedianGpuUtil,
  kMedianPower,
  kPeakRss,
  kMedianRss,
  kPeakMemUsed,
  kMedianMemUsed,
  kPageFaults,
  kMajorPageFaults,
  kTenantPageFaults,
  kTenantMajorPageFaults,
  kPagesWrittenBack,
  kPagedOut,
  kPeakDirtyPages,
  kPeakWritebackPages,
};

struct MetricInfo {
  Metric metric;
  std::string name;  // e.g. "minibatch time"
  std::string unit;  // e.g. "ms"
};

// Every metric in table order.
const std::vector<MetricInfo>& AllMetrics();

// The run's value of `metric` in display units; nullopt when the run does
// not have it.
std::optional<double> MetricValue(const RunMetrics& run, Metric metric);

struct SideStats {
  int n = 0;
  double mean = 0;
  bool has_ci = false;  // n >= 2
  double ci_low = 0;
  double ci_high = 0;
};

struct MetricComparison {
  MetricInfo info;
  SideStats baseline;
  SideStats other;
  bool has_difference = false;  // both sides have a value
  bool has_percent = false;     // and the baseline mean is not 0
  double difference_percent = 0;
  bool has_percent_ci = false;  // and both sides have n >= 2
  double percent_ci_low = 0;
  double percent_ci_high = 0;
  bool tested = false;          // both sides have n >= 2
  double p_value = 1;
  bool significant = false;     // p < 0.05
};

struct CellComparison {
  v1::RunSpec key;    // CellKey of its runs
  std::string label;  // CellLabel(key)
  std::vector<int64_t> baseline_run_ids;
  std::vector<int64_t> other_run_ids;
  std::vector<MetricComparison> metrics;
  std::vector<std::string> warnings;
};

struct Comparison {
  CompareBy by = CompareBy::kRuntime;
  std::vector<CellComparison> cells;
  // Not tied to one cell: runs skipped (not done, on no side).
  std::vector<std::string> warnings;
};

inline constexpr double kConfidenceLevel = 0.95;
inline constexpr double kSignificanceAlpha = 0.05;

// Groups `runs` (DONE runs are used; others are skipped with a warning)
// and compares each cell.
Comparison CompareRuns(const std::vector<RunMetrics>& runs, CompareBy by);

// CompareRuns over LoadSweepRunMetrics(store, sweep_id).
absl::StatusOr<Comparison> CompareSweep(Store* store, int64_t sweep_id,
                                        CompareBy by);

// The comparison as a table: a header and one row of strings per cell and
// metric, numbers already formatted; `numeric` marks the number columns.
// Columns: cell, metric, unit, n <b>, mean <b>, 95% CI <b>, n <o>,
// mean <o>, 95% CI <o>, diff %, 95% CI diff %, p (Welch), significant,
// where <b>/<o> are the side labels ("native", "container"). A missing
// figure is "-"; significant is "yes", "no" or "-" (not tested).
struct ComparisonTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;
};
ComparisonTable ToTable(const Comparison& comparison);

// Every warning as one line, "<cell label>: <warning>" for a cell's.
std::vector<std::string> WarningLines(const Comparison& comparison);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_
