// The metrics the device-instance variability report (variability.h)
// compares across devices: their names, units and each run's value.
//
//   minibatch_time     ms         mean e2e time per minibatch
//   throughput         samples/s  samples over the minibatches' e2e time
//   energy             J          the run's energy (RunMetrics::energy_j);
//                                 for a baseload run its mean power x
//                                 the requested workload.duration_s
//                                 (the integral covers only the
//                                 samples' span, which jitters by a tick)
//   energy_per_sample  mJ         energy / samples processed
//   incremental_energy J          energy over the device's baseload
//   mean_power         W          energy / the span it covers
//   idle_power         W          the board's mean power while the run
//                                 waited to start (RunMetrics::idle_power_w)
//
// A baseload run has only energy and mean power (its idle power per
// instance); a run without power readings has no energy metric.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_METRICS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_METRICS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "controller/analysis/run_metrics.h"

namespace powersweep {

enum class VariabilityMetric {
  kMinibatchTime,
  kThroughput,
  kEnergy,
  kEnergyPerSample,
  kIncrementalEnergy,
  kMeanPower,
  kIdlePower,
};

struct VariabilityMetricInfo {
  VariabilityMetric metric;
  std::string name;   // "minibatch_time": the --metric spelling
  std::string label;  // "minibatch time": for tables
  std::string unit;   // "ms"
};

// Every metric in report order.
const std::vector<VariabilityMetricInfo>& VariabilityMetrics();

// By name ("energy_per_sample"; dashes and upper case accepted);
// InvalidArgument naming --metric and the known names otherwise.
absl::StatusOr<VariabilityMetricInfo> ParseVariabilityMetric(
    absl::string_view name);

// The run's value in the metric's unit; nullopt when it has none.
std::optional<double> VariabilityValue(const RunMetrics& run,
                                       VariabilityMetric metric);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_METRICS_H_
