#include "controller/analysis/compare_metrics.h"

namespace powersweep {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::optional<double> Scaled(const std::optional<double>& v, double factor) {
  if (!v.has_value()) return std::nullopt;
  return *v * factor;
}

}  // namespace

bool NonNegative(Metric metric) {
  return metric != Metric::kIncrementalEnergy;
}

const std::vector<MetricInfo>& AllMetrics() {
  static const std::vector<MetricInfo>* const kMetrics =
      new std::vector<MetricInfo>{
          {Metric::kMinibatchTime, "minibatch time", "ms"},
          {Metric::kStallTime, "stall time", "ms"},
          {Metric::kComputeTime, "compute time", "ms"},
          {Metric::kOverheadTime, "overhead time", "ms"},
          {Metric::kThroughput, "throughput", "samples/s"},
          {Metric::kKernelGflops, "achieved GFLOP/s", "GFLOP/s"},
          {Metric::kKernelLaunchRate, "launch rate", "launches/s"},
          {Metric::kEnergy, "energy", "J"},
          {Metric::kIncrementalEnergy, "incremental energy", "J"},
          {Metric::kWorkloadCpuTime, "workload CPU time", "s"},
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
          {Metric::kTraceSyscalls, "system calls (traced)", "count"},
          {Metric::kTraceContextSwitches, "context switches (traced)",
           "count"},
          {Metric::kTraceMinorFaults, "minor faults (traced)", "count"},
          {Metric::kTraceMajorFaults, "major faults (traced)", "count"},
          {Metric::kTraceBlockWrites, "block writes issued (traced)", "MiB"},
          {Metric::kTraceWritebacks, "write-backs (traced)", "count"},
          {Metric::kTraceWritebackInterval, "write-back interval (traced)",
           "s"},
          {Metric::kTracerCpu, "tracer CPU time", "s"},
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
    case Metric::kKernelGflops:
      return run.kernel_gflop_per_s;
    case Metric::kKernelLaunchRate:
      return run.kernel_launches_per_s;
    case Metric::kEnergy:
      return run.energy_j;
    case Metric::kIncrementalEnergy:
      return run.incremental_energy_j;
    case Metric::kWorkloadCpuTime:
      return run.workload_cpu_s;
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
    case Metric::kTraceSyscalls:
      return run.trace_syscalls;
    case Metric::kTraceContextSwitches:
      return run.trace_context_switches;
    case Metric::kTraceMinorFaults:
      return run.trace_minor_faults;
    case Metric::kTraceMajorFaults:
      return run.trace_major_faults;
    case Metric::kTraceBlockWrites:
      return run.trace_block_write_mib;
    case Metric::kTraceWritebacks:
      return run.trace_writebacks;
    case Metric::kTraceWritebackInterval:
      return run.trace_writeback_interval_s;
    case Metric::kTracerCpu:
      return run.tracer_cpu_s;
  }
  return std::nullopt;
}

}  // namespace powersweep
