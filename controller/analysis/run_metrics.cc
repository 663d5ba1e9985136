#include "controller/analysis/run_metrics.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/status/status.h"
#include "common/status_macros.h"
#include "controller/analysis/run_summary.h"
#include "controller/analysis/stats.h"
#include "controller/analysis/stored_run.h"

namespace powersweep {
namespace {

using SampleField = std::function<double(const v1::TelemetrySample&)>;

// Median and peak of `field` over the samples where it is > 0 (0 means
// "not read" for every field used here); nullopt without such samples.
struct MedianPeak {
  std::optional<double> median;
  std::optional<double> peak;
};

MedianPeak OverPositive(const std::vector<v1::TelemetrySample>& telemetry,
                        const SampleField& field) {
  std::vector<double> values;
  for (const v1::TelemetrySample& t : telemetry) {
    const double v = field(t);
    if (v > 0) values.push_back(v);
  }
  MedianPeak out;
  if (values.empty()) return out;
  out.median = stats::Median(values);
  out.peak = *std::max_element(values.begin(), values.end());
  return out;
}

void FillMinibatchMetrics(const v1::RunSummary& s, RunMetrics* m) {
  m->minibatches = s.minibatches();
  if (s.minibatches() <= 0) return;
  m->mean_minibatch_s = s.mean_minibatch_s();
  m->mean_stall_s = s.mean_stall_s();
  m->mean_compute_s = s.mean_compute_s();
  m->mean_overhead_s =
      s.mean_minibatch_s() - s.mean_stall_s() - s.mean_compute_s();
  m->samples_per_s = s.samples_per_s();
  m->samples = s.samples_per_s() * s.mean_minibatch_s() * s.minibatches();
  if (s.kernel_gflop_per_s() > 0) m->kernel_gflop_per_s = s.kernel_gflop_per_s();
  if (s.kernel_launches_per_s() > 0) {
    m->kernel_launches_per_s = s.kernel_launches_per_s();
  }
}

void FillTelemetryMetrics(const std::vector<v1::TelemetrySample>& telemetry,
                          RunMetrics* m) {
  m->telemetry_samples = static_cast<int64_t>(telemetry.size());
  if (telemetry.empty()) return;
  std::vector<double> cpu;
  bool any_gpu = false;
  for (const v1::TelemetrySample& t : telemetry) {
    cpu.push_back(t.cpu_util());
    any_gpu = any_gpu || t.gpu_util() > 0 || t.gpu_freq_hz() > 0;
  }
  m->median_cpu_util = stats::Median(cpu);
  if (any_gpu) {
    std::vector<double> gpu;
    for (const v1::TelemetrySample& t : telemetry) gpu.push_back(t.gpu_util());
    m->median_gpu_util = stats::Median(gpu);
  }
  const MedianPeak power = OverPositive(
      telemetry, [](const v1::TelemetrySample& t) { return t.power_mw(); });
  if (power.median.has_value()) m->median_power_w = *power.median / 1000.0;
  const MedianPeak rss = OverPositive(telemetry, [](const v1::TelemetrySample& t) {
    return static_cast<double>(t.proc_rss_bytes());
  });
  m->median_rss_bytes = rss.median;
  m->peak_rss_bytes = rss.peak;
  const MedianPeak used = OverPositive(telemetry, [](const v1::TelemetrySample& t) {
    return static_cast<double>(t.mem_used_bytes());
  });
  m->median_mem_used_bytes = used.median;
  m->peak_mem_used_bytes = used.peak;
}

// Last minus first of a cumulative counter; nullopt when it went down.
std::optional<double> Delta(const v1::KernelCounters& first,
                            const v1::KernelCounters& last,
                            int64_t (v1::KernelCounters::*field)() const) {
  const int64_t d = (last.*field)() - (first.*field)();
  if (d < 0) return std::nullopt;
  return static_cast<double>(d);
}

double Peak(const std::vector<const v1::TelemetrySample*>& samples,
            int64_t (v1::KernelCounters::*field)() const) {
  int64_t peak = 0;
  for (const v1::TelemetrySample* s : samples) {
    peak = std::max(peak, (s->counters().*field)());
  }
  return static_cast<double>(peak);
}

void FillCounterMetrics(const std::vector<v1::TelemetrySample>& telemetry,
                        RunMetrics* m) {
  std::vector<const v1::TelemetrySample*> with;
  for (const v1::TelemetrySample& t : telemetry) {
    if (t.has_counters()) with.push_back(&t);
  }
  if (with.size() < 2) return;
  std::stable_sort(with.begin(), with.end(), [](const auto* a, const auto* b) {
    return a->t_s() < b->t_s();
  });
  const v1::KernelCounters& first = with.front()->counters();
  const v1::KernelCounters& last = with.back()->counters();
  using C = v1::KernelCounters;
  m->page_faults = Delta(first, last, &C::pgfault);
  m->major_page_faults = Delta(first, last, &C::pgmajfault);
  m->pages_written_back = Delta(first, last, &C::nr_written);
  m->paged_out_kib = Delta(first, last, &C::pgpgout);
  m->peak_dirty_pages = Peak(with, &C::nr_dirty);
  m->peak_writeback_pages = Peak(with, &C::nr_writeback);
  const bool tenant = std::any_of(with.begin(), with.end(), [](const auto* s) {
    return s->counters().tenant_pgfault() > 0;
  });
  if (tenant) {
    m->tenant_page_faults = Delta(first, last, &C::tenant_pgfault);
    m->tenant_major_page_faults = Delta(first, last, &C::tenant_pgmajfault);
  }
}

}  // namespace

RunMetrics ComputeRunMetrics(const v1::RunStatus& run,
                             const v1::RunResult* result,
                             const std::vector<v1::MinibatchRecord>& minibatches,
                             const std::vector<v1::TelemetrySample>& telemetry) {
  RunMetrics m;
  m.run_id = run.spec().run_id();
  m.spec = run.spec();
  m.state = run.state();
  m.device_id = run.device_id();
  const v1::RunSummary s = SummarizeRun(minibatches, telemetry, result);
  FillMinibatchMetrics(s, &m);
  if (s.energy_j() > 0 || s.energy_provenance() != v1::PROVENANCE_UNSPECIFIED) {
    m.energy_j = s.energy_j();
    m.energy_provenance = s.energy_provenance();
    if (s.mean_power_mw() > 0) m.mean_power_w = s.mean_power_mw() / 1000.0;
  }
  FillTelemetryMetrics(telemetry, &m);
  FillCounterMetrics(telemetry, &m);
  if (result != nullptr) {
    if (result->baseload_run_id() > 0 &&
        run.spec().workload().task() != v1::TASK_BASELOAD) {
      m.baseload_run_id = result->baseload_run_id();
      m.incremental_energy_j = result->incremental_energy_j();
    }
    const v1::RunConditions& c = result->conditions();
    if (c.has_start_temp_c()) m.start_temp_c = c.start_temp_c();
    if (c.has_idle_power_mw()) m.idle_power_w = c.idle_power_mw() / 1000;
    m.run_device = c.device();
    if (result->workload_cpu_s() > 0) m.workload_cpu_s = result->workload_cpu_s();
    if (result->has_traces()) FillTraceMetrics(result->traces(), &m);
    m.vm_accel = result->vm().accel();
    m.binary_fingerprint = result->provenance().binary_fingerprint();
    m.framework_fingerprint = result->provenance().framework_fingerprint();
    m.framework = result->provenance().framework();
    m.framework_version = result->provenance().framework_version();
  }
  return m;
}

void FillTraceMetrics(const v1::RunTraces& traces, RunMetrics* m) {
  std::set<int> collected(traces.requested().begin(), traces.requested().end());
  for (const v1::TraceMissing& missing : traces.missing()) {
    collected.erase(missing.kind());
  }
  auto has = [&](v1::Trace kind) { return collected.count(kind) > 0; };
  if (has(v1::TRACE_SYSCALLS)) m->trace_syscalls = 0;
  if (has(v1::TRACE_SCHED)) m->trace_context_switches = 0;
  if (has(v1::TRACE_PAGE_FAULTS)) {
    m->trace_minor_faults = 0;
    m->trace_major_faults = 0;
  }
  if (has(v1::TRACE_BLOCK)) m->trace_block_write_mib = 0;
  if (has(v1::TRACE_WRITEBACK)) m->trace_writebacks = 0;
  for (const v1::TraceCount& c : traces.counts()) {
    if (!has(c.kind())) continue;
    switch (c.kind()) {
      case v1::TRACE_SYSCALLS:
        *m->trace_syscalls += c.count();
        break;
      case v1::TRACE_SCHED:
        if (c.name() == "context_switches") {
          *m->trace_context_switches += c.count();
        }
        break;
      case v1::TRACE_PAGE_FAULTS:
        if (c.name() == "minor") *m->trace_minor_faults += c.count();
        if (c.name() == "major") *m->trace_major_faults += c.count();
        break;
      case v1::TRACE_BLOCK:
        if (c.name() == "issue W") {
          *m->trace_block_write_mib += c.bytes() / (1024.0 * 1024.0);
        }
        break;
      case v1::TRACE_WRITEBACK:
        if (c.name() == "all") {
          *m->trace_writebacks = c.count();
          if (c.interval_count() > 0) {
            m->trace_writeback_interval_s = c.interval_mean_s();
          }
        }
        break;
      default:
        break;
    }
  }
  if (!collected.empty()) m->tracer_cpu_s = traces.tracer_cpu_s();
}

bool IsTwinRun(const RunMetrics& run) { return run.framework == "twin-model"; }

absl::StatusOr<RunMetrics> LoadRunMetrics(Store* store, int64_t run_id) {
  PS_ASSIGN_OR_RETURN(StoredRun stored, LoadStoredRun(store, run_id));
  return ComputeRunMetrics(stored.run, stored.result_or_null(),
                           stored.minibatches, stored.telemetry);
}

absl::StatusOr<std::vector<RunMetrics>> LoadSweepRunMetrics(Store* store,
                                                            int64_t sweep_id) {
  PS_ASSIGN_OR_RETURN(std::vector<v1::RunStatus> runs,
                      store->ListRuns(sweep_id));
  std::vector<RunMetrics> out;
  for (const v1::RunStatus& run : runs) {
    if (run.state() != v1::RUN_STATE_DONE) continue;
    PS_ASSIGN_OR_RETURN(RunMetrics m,
                        LoadRunMetrics(store, run.spec().run_id()));
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace powersweep
