// Sampler: on its own thread, takes one TelemetrySample every 1/hz seconds
// (on the Clock; sample k is due at start + k/hz, k = 1, 2, ..., so a slow
// sample does not shift the schedule) and hands it to a callback.
//
// Each sample: t_s since the run start, one CoreSample per run CPU
// (utilization from /proc/stat between this and the previous sample, and
// whatever the Platform fills in: frequency, power), cpu_util = mean over
// the run CPUs, memory from /proc/meminfo, the workload processes' CPU time
// and RSS summed over the processes (one per co-located tenant; a process
// that cannot be read, e.g. after it exited, adds nothing).
//
// The thread measures its own CPU time (CLOCK_THREAD_CPUTIME_ID), returned
// by Stop() so the run result can report the sampler's overhead.
//
// Thread safety: Start and Stop from one controlling thread; the callback
// and Platform::Sample run on the sampler thread.
#ifndef POWERSWEEP_AGENT_TELEMETRY_SAMPLER_H_
#define POWERSWEEP_AGENT_TELEMETRY_SAMPLER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/platform/platform.h"
#include "agent/telemetry/kernel_counters.h"
#include "agent/telemetry/proc_readers.h"
#include "common/clock.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

struct SamplerOptions {
  double hz = 10;                  // <= 0: no sampling
  std::vector<int> cpus;           // the run's CPUs
  std::vector<int> pids;           // workload processes (<= 0: skipped)
  int64_t run_start_mono_ns = 0;   // t_s origin on the Clock
  std::string proc_root = "/proc";
  // Kernel memory counters from PROC/vmstat in every sample
  // (TelemetrySample.counters); dropped for the run if unreadable.
  bool kernel_counters = true;
  // Adds the workload's own counters (tenant_* of KernelCounters), on the
  // sampler thread; empty = none.
  std::function<void(v1::KernelCounters*)> workload_counters;
};

class Sampler {
 public:
  using Callback = std::function<void(const v1::TelemetrySample&)>;

  // `platform` and `clock` must outlive the sampler.
  Sampler(Platform* platform, Clock* clock);
  ~Sampler();  // stops the thread

  void Start(const SamplerOptions& options, Callback callback);
  // Stops and joins the thread; returns its CPU time in seconds. Returns
  // within one sleep step (at most 50 ms of clock time).
  double Stop();

 private:
  void Loop();
  v1::TelemetrySample TakeSample(int64_t now_ns);
  std::map<int, CpuTimes> ReadStat();
  std::unique_ptr<VmstatReader> vmstat_reader_;

  Platform* platform_;
  Clock* clock_;
  SamplerOptions options_;
  Callback callback_;
  std::thread thread_;
  // Notified by Stop(); a new one per Start(). The loop sleeps on it until
  // the next sample is due, so it wakes once per sample.
  std::unique_ptr<absl::Notification> stop_;
  std::atomic<double> thread_cpu_s_{0};
  // Owned by the sampler thread while it runs.
  std::unique_ptr<ProcStatReader> stat_reader_;
  std::unique_ptr<MeminfoReader> mem_reader_;
  std::vector<std::unique_ptr<ProcessReader>> proc_readers_;
  std::map<int, CpuTimes> prev_stat_;
  bool warned_ = false;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_SAMPLER_H_
