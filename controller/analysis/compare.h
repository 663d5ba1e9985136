// Comparison of a sweep's runs along one dimension (`powersweep compare
// --sweep ID --by runtime|page_cache|device`): the baseline side against
// the other side in every cell (compare_cells.h: what a cell and a side
// are; by device, the runs of one named device against another's).
// Cells are ordered by their first run id.
//
// Per cell and metric (compare_metrics.h, each where the runs have it):
// both sides' n, mean and t-based 95% confidence interval of the mean, the
// difference other - baseline in percent of the baseline mean with its 95%
// CI, the p-value of Welch's t-test and whether it is significant at 0.05
// (stats.h says why Welch: few repetitions per side and no reason to assume
// equal variances). A metric none of the cell's runs has is left out.
//
// Warnings per cell: the two sides' provenance differs (binary or
// framework fingerprint: the difference may come from the build, not the
// compared dimension), a side has fewer than 2 runs (no interval, no test)
// or none, the sides ran on different devices (not by device), metrics
// whose means differ with no spread on either side (deterministic runs such as twins: no
// t-test, so no p-value and no verdict, rather than "significant" for a
// difference of rounding size).
//
// A side with no run in any cell (by device: a named device that ran no
// done run of the sweep, e.g. a typo; by runtime: a sweep without container
// runs) makes the comparison meaningless: CompareSweep fails with
// FailedPrecondition naming the side (CheckSides), instead of printing a
// table of one-sided cells.
//
// Pure functions except CompareSweep (reads the store); thread-safe.
// compare_table.h prints a comparison.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/compare_cells.h"
#include "controller/analysis/compare_metrics.h"
#include "controller/analysis/run_metrics.h"
#include "powersweep/v1/run.pb.h"
#include "storage/store.h"

namespace powersweep {

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
  bool tested = false;          // both sides have n >= 2 and some spread
  bool zero_spread = false;     // n >= 2 on both sides, no spread: no test
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
  CompareDimension dimension;
  std::vector<CellComparison> cells;
  // Not tied to one cell: runs skipped (not done, on no side).
  std::vector<std::string> warnings;
  // The devices the compared (done) runs ran on, sorted.
  std::vector<std::string> devices;
};

// OK when both sides have runs in some cell; else FailedPrecondition naming
// the missing side ("device xavier-agx-twin-9 ran no done run of sweep 4
// (devices with done runs: ...)", "sweep 4 has no done container runs to
// compare with native").
absl::Status CheckSides(const Comparison& comparison, int64_t sweep_id);

inline constexpr double kConfidenceLevel = 0.95;
inline constexpr double kSignificanceAlpha = 0.05;

// Groups `runs` (DONE runs are used; others are skipped with a warning)
// and compares each cell.
Comparison CompareRuns(const std::vector<RunMetrics>& runs,
                       const CompareDimension& dimension);

// CompareRuns over LoadSweepRunMetrics(store, sweep_id).
absl::StatusOr<Comparison> CompareSweep(Store* store, int64_t sweep_id,
                                        const CompareDimension& dimension);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_H_
