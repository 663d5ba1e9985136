#include "controller/analysis/variability_metrics.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace powersweep {

const std::vector<VariabilityMetricInfo>& VariabilityMetrics() {
  static const std::vector<VariabilityMetricInfo>* const kMetrics =
      new std::vector<VariabilityMetricInfo>{
          {VariabilityMetric::kMinibatchTime, "minibatch_time",
           "minibatch time", "ms"},
          {VariabilityMetric::kThroughput, "throughput", "throughput",
           "samples/s"},
          {VariabilityMetric::kEnergy, "energy", "energy", "J"},
          {VariabilityMetric::kEnergyPerSample, "energy_per_sample",
           "energy per sample", "mJ"},
          {VariabilityMetric::kIncrementalEnergy, "incremental_energy",
           "incremental energy", "J"},
          {VariabilityMetric::kMeanPower, "mean_power", "mean power", "W"},
          {VariabilityMetric::kIdlePower, "idle_power", "idle power", "W"},
      };
  return *kMetrics;
}

absl::StatusOr<VariabilityMetricInfo> ParseVariabilityMetric(
    absl::string_view name) {
  const std::string wanted =
      absl::StrReplaceAll(absl::AsciiStrToLower(name), {{"-", "_"}});
  std::string known;
  for (const VariabilityMetricInfo& m : VariabilityMetrics()) {
    if (m.name == wanted) return m;
    absl::StrAppend(&known, known.empty() ? "" : ", ", m.name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--metric: unknown metric \"", name, "\" (known: ", known, ")"));
}

std::optional<double> VariabilityValue(const RunMetrics& run,
                                       VariabilityMetric metric) {
  switch (metric) {
    case VariabilityMetric::kMinibatchTime:
      if (!run.mean_minibatch_s.has_value()) return std::nullopt;
      return *run.mean_minibatch_s * 1000;
    case VariabilityMetric::kThroughput:
      return run.samples_per_s;
    case VariabilityMetric::kEnergy:
      // A baseload run's integrated energy covers only its samples' span,
      // which depends on where the sampler's ticks fall in the wait (one
      // tick more or less is 1-2% of a short baseload). Its energy is the
      // idle board's mean power over the requested duration instead.
      if (run.spec.workload().task() == v1::TASK_BASELOAD && run.mean_power_w &&
          run.spec.workload().duration_s() > 0) {
        return *run.mean_power_w * run.spec.workload().duration_s();
      }
      return run.energy_j;
    case VariabilityMetric::kEnergyPerSample:
      if (!run.energy_j.has_value() || !run.samples.has_value() ||
          !(*run.samples > 0)) {
        return std::nullopt;
      }
      return *run.energy_j / *run.samples * 1000;
    case VariabilityMetric::kIncrementalEnergy:
      return run.incremental_energy_j;
    case VariabilityMetric::kMeanPower:
      return run.mean_power_w;
    case VariabilityMetric::kIdlePower:
      return run.idle_power_w;
  }
  return std::nullopt;
}

}  // namespace powersweep
