// The metrics a comparison (compare.h) reports per cell: their names,
// display units and each run's value in those units (ms, MiB, %, W, J,
// counts). Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_METRICS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_METRICS_H_

#include <optional>
#include <string>
#include <vector>

#include "controller/analysis/run_metrics.h"

namespace powersweep {

enum class Metric {
  kMinibatchTime,
  kStallTime,
  kComputeTime,
  kOverheadTime,
  kThroughput,
  kKernelGflops,
  kKernelLaunchRate,
  kEnergy,
  kIncrementalEnergy,
  kWorkloadCpuTime,
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
  kTraceSyscalls,
  kTraceContextSwitches,
  kTraceMinorFaults,
  kTraceMajorFaults,
  kTraceBlockWrites,
  kTraceWritebacks,
  kTraceWritebackInterval,
  kTracerCpu,
};

struct MetricInfo {
  Metric metric;
  std::string name;  // e.g. "minibatch time"
  std::string unit;  // e.g. "ms"
};

// False only for metrics that can be below zero (incremental energy is the
// run's energy less the baseload's); counts, times, power, memory and
// utilization cannot, so their confidence intervals are cut at zero.
bool NonNegative(Metric metric);

// Every metric in table order.
const std::vector<MetricInfo>& AllMetrics();

// The run's value of `metric` in display units; nullopt when the run does
// not have it.
std::optional<double> MetricValue(const RunMetrics& run, Metric metric);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_COMPARE_METRICS_H_
