// Run metrics: the per-run figures the overhead study compares,
// computed from a run's stored spec, result, minibatch records and
// telemetry samples.
//
// Per run:
// - minibatch time and its split: mean e2e, stall, compute and overhead
//   (= e2e - stall - compute) per minibatch; throughput (samples / s of
//   e2e time). From SummarizeRun (run_summary.h). Kernel runs also
//   achieved GFLOP/s and the launch rate.
// - energy: total (RunResult.energy_j, else the trapezoid of the samples)
//   and incremental over the device's baseload (the RunResult fields the
//   controller stored when the run finished; none when it stored none).
//   Energy provenance. Mean power = energy over the span it covers
//   (RunSummary.mean_power_mw, run_summary.h): the time-weighted mean of
//   the power readings. docs/quantities.md.
// - medians over the telemetry samples: CPU utilization, GPU utilization,
//   total power (W); memory: peak and median workload RSS
//   (proc_rss_bytes) and device memory in use (mem_used_bytes).
// - kernel counters (TelemetrySample.counters, KernelCounters): for a
//   cumulative counter, last minus first sample (in time order) of the
//   samples that carry counters; for a gauge (nr_dirty, nr_writeback), the
//   peak. tenant_* counters only when some sample has them non-zero.
// - workload CPU time (RunResult.workload_cpu_s: every tenant's process or
//   container), when the agent reported it.
// - provenance: binary and framework fingerprints and the framework
//   version from RunResult.provenance.
// - conditions (RunResult.conditions, measured by the agent before the
//   workload started): start temperature and idle power, when measured.
//
// A figure that the run's data cannot give is absent (std::nullopt), not
// 0: no minibatches (a baseload run), no power readings, no GPU (every
// sample with gpu_util and gpu_freq_hz 0), no samples with counters (fewer
// than 2), a cumulative counter that went down (a counter reset).
//
// Pure functions except the Load* functions, which read the store;
// thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_RUN_METRICS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_RUN_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/baseload.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "storage/store.h"

namespace powersweep {

struct RunMetrics {
  int64_t run_id = 0;
  v1::RunSpec spec;  // what the run was (grouping in compare.h)
  v1::RunState state = v1::RUN_STATE_UNSPECIFIED;
  std::string device_id;  // the device it ran on

  int64_t minibatches = 0;
  int64_t telemetry_samples = 0;

  // Seconds per minibatch (means over the run's minibatches).
  std::optional<double> mean_minibatch_s;
  std::optional<double> mean_stall_s;
  std::optional<double> mean_compute_s;
  std::optional<double> mean_overhead_s;  // e2e - stall - compute
  std::optional<double> samples_per_s;
  // Samples processed: samples_per_s x the minibatches' e2e time.
  std::optional<double> samples;
  // Kernel runs only (RunSummary.kernel_gflop_per_s, kernel_launches_per_s:
  // the iteration's FLOPs and launches over the mean compute time).
  std::optional<double> kernel_gflop_per_s;
  std::optional<double> kernel_launches_per_s;
  // The workload's CPU time over its tenants (RunResult.workload_cpu_s);
  // absent when the agent did not report it.
  std::optional<double> workload_cpu_s;
  // Kernel event traces (RunResult.traces), each set only when its trace
  // was collected: system calls of the workload, its context switches,
  // minor and major faults; bytes written to block devices (requests
  // issued, system-wide, MiB); write-backs started (every reason, the
  // "all" row) and the mean interval between them; the tracer's CPU time.
  std::optional<double> trace_syscalls;
  std::optional<double> trace_context_switches;
  std::optional<double> trace_minor_faults;
  std::optional<double> trace_major_faults;
  std::optional<double> trace_block_write_mib;
  std::optional<double> trace_writebacks;
  std::optional<double> trace_writeback_interval_s;
  std::optional<double> tracer_cpu_s;

  std::optional<double> energy_j;
  std::optional<double> incremental_energy_j;
  std::optional<double> mean_power_w;  // energy_j / the span it covers
  v1::Provenance energy_provenance = v1::PROVENANCE_UNSPECIFIED;
  int64_t baseload_run_id = 0;  // 0 = no incremental energy

  std::optional<double> median_cpu_util;  // 0..1
  std::optional<double> median_gpu_util;  // 0..1
  std::optional<double> median_power_w;

  std::optional<double> peak_rss_bytes;
  std::optional<double> median_rss_bytes;
  std::optional<double> peak_mem_used_bytes;
  std::optional<double> median_mem_used_bytes;

  // Kernel counters over the run (see the header comment).
  std::optional<double> page_faults;        // pgfault delta (minor + major)
  std::optional<double> major_page_faults;  // pgmajfault delta
  std::optional<double> pages_written_back;  // nr_written delta
  std::optional<double> paged_out_kib;       // pgpgout delta
  std::optional<double> peak_dirty_pages;    // nr_dirty max
  std::optional<double> peak_writeback_pages;  // nr_writeback max
  std::optional<double> tenant_page_faults;    // tenant_pgfault delta
  std::optional<double> tenant_major_page_faults;

  // The conditions the run started under (RunResult.conditions): board
  // temperature, and the board's mean power while the run waited to
  // start (its settle). Absent when the agent did not measure them.
  std::optional<double> start_temp_c;
  std::optional<double> idle_power_w;
  // The device as it ran this run (RunConditions.device: module, kernel,
  // L4T release, nvpmodel configuration); empty when not reported.
  v1::DeviceIdentity run_device;

  std::string binary_fingerprint;     // empty when the run has no result
  std::string framework_fingerprint;
  std::string framework;              // "libtorch", "twin-model"
  std::string framework_version;
  // vm runs: the VM's accelerator (RunResult.vm.accel: "kvm", "tcg").
  std::string vm_accel;
};

// A twin's run (framework "twin-model"): its binary fingerprint names the
// simulated instance ("twin:CLASS:seed=S:instance=I"), not a build, so it
// differs between twins of one build.
bool IsTwinRun(const RunMetrics& run);

// The trace fields of `m` from a run's RunTraces (left unset for kinds
// that were not asked for or are missing).
void FillTraceMetrics(const v1::RunTraces& traces, RunMetrics* m);

// `result` may be null (a run without a result: energy from the samples,
// no fingerprints). Records need not be sorted.
RunMetrics ComputeRunMetrics(const v1::RunStatus& run,
                             const v1::RunResult* result,
                             const std::vector<v1::MinibatchRecord>& minibatches,
                             const std::vector<v1::TelemetrySample>& telemetry);

// Reads the run's current attempt from `store` (NotFound for an unknown
// run; a missing result is allowed) and computes its metrics.
absl::StatusOr<RunMetrics> LoadRunMetrics(Store* store, int64_t run_id);

// The metrics of every DONE run of the sweep, in run_id order (NotFound
// for an unknown sweep).
absl::StatusOr<std::vector<RunMetrics>> LoadSweepRunMetrics(Store* store,
                                                            int64_t sweep_id);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_RUN_METRICS_H_
