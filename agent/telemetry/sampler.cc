#include "agent/telemetry/sampler.h"

#include <time.h>

#include <algorithm>
#include <utility>

#include "agent/util/seconds_to_nanos.h"
#include "common/log.h"

namespace powersweep {

namespace {

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace

Sampler::Sampler(Platform* platform, Clock* clock)
    : platform_(platform), clock_(clock) {}

Sampler::~Sampler() { Stop(); }

void Sampler::Start(const SamplerOptions& options, Callback callback) {
  Stop();
  options_ = options;
  callback_ = std::move(callback);
  stop_ = std::make_unique<absl::Notification>();
  thread_cpu_s_ = 0;
  prev_stat_.clear();
  if (options_.hz <= 0) return;
  thread_ = std::thread([this] { Loop(); });
}

double Sampler::Stop() {
  if (stop_ != nullptr && !stop_->HasBeenNotified()) stop_->Notify();
  if (thread_.joinable()) thread_.join();
  return thread_cpu_s_;
}

std::map<int, CpuTimes> Sampler::ReadStat() {
  absl::StatusOr<std::map<int, CpuTimes>> st = stat_reader_->Read();
  if (!st.ok()) {
    if (!warned_) PS_LOG(WARNING) << "sampler: " << st.status().message();
    warned_ = true;
    return {};
  }
  return *std::move(st);
}

v1::TelemetrySample Sampler::TakeSample(int64_t now_ns) {
  v1::TelemetrySample s;
  s.set_t_s(static_cast<double>(now_ns - options_.run_start_mono_ns) * 1e-9);
  std::map<int, CpuTimes> cur = ReadStat();
  double sum = 0;
  for (int cpu : options_.cpus) {
    double u = CoreUtilization(prev_stat_, cur, cpu);
    s.add_cores()->set_util(u);
    sum += u;
  }
  if (!options_.cpus.empty()) s.set_cpu_util(sum / options_.cpus.size());
  prev_stat_ = std::move(cur);
  absl::StatusOr<MemInfo> mem = mem_reader_->Read();
  if (mem.ok()) {
    s.set_mem_total_bytes(mem->total_bytes);
    s.set_mem_used_bytes(mem->UsedBytes());
  }
  if (!proc_readers_.empty()) {
    double cpu_s = 0;
    int64_t rss_bytes = 0;
    for (const std::unique_ptr<ProcessReader>& reader : proc_readers_) {
      absl::StatusOr<ProcessUsage> usage = reader->Read();
      if (!usage.ok()) continue;
      cpu_s += usage->cpu_s;
      rss_bytes += usage->rss_bytes;
    }
    s.set_proc_cpu_s(cpu_s);
    s.set_proc_rss_bytes(rss_bytes);
  }
  if (vmstat_reader_) {
    absl::StatusOr<VmstatCounters> vm = vmstat_reader_->Read();
    if (vm.ok()) {
      v1::KernelCounters* k = s.mutable_counters();
      k->set_pgfault(vm->pgfault);
      k->set_pgmajfault(vm->pgmajfault);
      k->set_nr_dirty(vm->nr_dirty_pages);
      k->set_nr_writeback(vm->nr_writeback_pages);
      k->set_pgpgout(vm->pgpgout_kib);
      k->set_nr_written(vm->nr_written_pages);
    } else {
      vmstat_reader_.reset();  // not on this system: stop trying
    }
  }
  if (options_.workload_counters) {
    options_.workload_counters(s.mutable_counters());
  }
  platform_->Sample(options_.cpus, &s);
  return s;
}

namespace {
constexpr int64_t kPlainSleepNs = 50'000'000;
}  // namespace

void Sampler::Loop() {
  stat_reader_ = std::make_unique<ProcStatReader>(options_.proc_root);
  mem_reader_ = std::make_unique<MeminfoReader>(options_.proc_root);
  proc_readers_.clear();
  for (int pid : options_.pids) {
    if (pid <= 0) continue;
    proc_readers_.push_back(
        std::make_unique<ProcessReader>(options_.proc_root, pid));
  }
  vmstat_reader_.reset();
  if (options_.kernel_counters) {
    vmstat_reader_ = std::make_unique<VmstatReader>(options_.proc_root);
  }
  warned_ = false;
  prev_stat_ = ReadStat();
  // At least 1 ns, so the loop always advances.
  const int64_t period_ns =
      std::max<int64_t>(1, SecondsToNanos(1.0 / options_.hz));
  int64_t next_ns = options_.run_start_mono_ns + period_ns;
  while (!stop_->HasBeenNotified()) {
    int64_t now = clock_->MonotonicNanos();
    if (now < next_ns) {
      // One wake-up per sample. A short wait is a plain sleep (cheaper than
      // waiting on the notification; Stop() waits for it); a long one ends
      // at once when Stop() is called.
      const int64_t wait_ns = next_ns - now;
      if (wait_ns <= kPlainSleepNs) {
        clock_->SleepFor(absl::Nanoseconds(wait_ns));
      } else if (clock_->WaitFor(stop_.get(), absl::Nanoseconds(wait_ns))) {
        break;
      }
      continue;
    }
    // Sample at the due time's schedule; if we fell behind, skip missed slots.
    while (next_ns <= now) next_ns += period_ns;
    v1::TelemetrySample s = TakeSample(now);
    thread_cpu_s_ = ThreadCpuSeconds();
    callback_(s);
  }
  thread_cpu_s_ = ThreadCpuSeconds();
}

}  // namespace powersweep
