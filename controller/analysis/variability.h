// Device-instance variability of a sweep (`powersweep variability`): how
// much nominally identical devices (say four Xavier AGX boards) differ in
// time and energy for the same workload and power mode.
//
// Cells: the sweep's done runs equal in everything but the repetition, the
// attempt, their ids and their placement (InstanceKey, compare_cells.h:
// the device class is part of the key; the device a run went to, or was
// pinned to by `placement: every_device`, is not). Cells are ordered by
// their first run id.
//
// Per cell and metric (variability_metrics.h; a metric none of the cell's
// runs has is left out), the runs are grouped by the device they ran on
// (RunStatus.device_id), devices in id order:
// - per device: n, mean, SD and the t-based 95% CI of the mean
//   (stats::Summarize), the mean start temperature of those runs (when
//   they measured one), and the leave-one-out outlier check;
// - across devices: stats::OneWayRandomEffects (variance_components.h):
//   between- and within-device SD, ICC(1), the CV and max/min of the device
//   means, the F test's p-value, the outlier devices.
//
// Warnings per cell: only one device (nothing to compare), a device with a
// single run (no within-device variance from it), runs of different builds
// (binary or framework fingerprint: a difference may come from the build,
// not the board; a twin's binary fingerprint names its instance and is not
// compared), devices that ran different software (module, L4T release,
// kernel or nvpmodel configuration in RunConditions.device), and the
// analysis's notes on missing figures (each once, after the metrics it
// concerns unless it concerns all of them).
// Report warnings: runs without a device id, which are left out.
//
// Pure functions except SweepVariability (reads the store); thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/run_metrics.h"
#include "controller/analysis/stats.h"
#include "controller/analysis/variability_metrics.h"
#include "controller/analysis/variance_components.h"
#include "powersweep/v1/run.pb.h"
#include "storage/store.h"

namespace powersweep {

struct DeviceVariability {
  std::string device_id;
  std::vector<int64_t> run_ids;  // its runs with a value of the metric
  stats::SampleSummary summary;  // n, mean, sd, median, 95% CI
  bool has_start_temp = false;   // some of those runs measured one
  double mean_start_temp_c = 0;
  stats::GroupFigures figures;   // n, mean, leave-one-out check
};

struct MetricVariability {
  VariabilityMetricInfo info;
  std::vector<DeviceVariability> devices;  // in device id order
  stats::OneWayAnova across;               // its groups: `devices`' order
  std::vector<std::string> outlier_devices;
};

struct CellVariability {
  v1::RunSpec key;    // InstanceKey of its runs
  std::string label;  // CellLabel(key), "#<first run>" when not unique
  std::vector<std::string> device_ids;  // every device with runs here
  std::vector<int64_t> run_ids;
  std::vector<MetricVariability> metrics;
  std::vector<std::string> warnings;
};

struct VariabilityReport {
  std::vector<CellVariability> cells;
  std::vector<std::string> warnings;  // not tied to one cell
};

inline constexpr double kVariabilityLevel = 0.95;

// Groups the DONE runs of `runs` (others are left out with a warning) and
// analyzes every metric, or only `only`.
VariabilityReport AnalyzeVariability(
    const std::vector<RunMetrics>& runs,
    const std::optional<VariabilityMetric>& only = std::nullopt);

// AnalyzeVariability over LoadSweepRunMetrics(store, sweep_id).
absl::StatusOr<VariabilityReport> SweepVariability(
    Store* store, int64_t sweep_id,
    const std::optional<VariabilityMetric>& only = std::nullopt);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_H_
