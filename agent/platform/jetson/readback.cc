// ReadBack and OnlineCpus (see apply.h).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/jetson/apply.h"

namespace powersweep {
namespace jetson {

namespace {

struct Observed {
  std::vector<int> online;
  // One entry per cluster with an online CPU: (cpus label, kHz or -1).
  std::vector<std::pair<std::string, int64_t>> clusters;
  int64_t cpu0_khz = 0;
  int64_t gpu_hz = 0;
  int64_t mem_hz = 0;
  std::vector<std::string> errors;
};

std::string CpuRange(const std::vector<int>& cpus) {
  return cpus.size() == 1
             ? absl::StrCat("cpu", cpus.front())
             : absl::StrCat("cpu", cpus.front(), "-", cpus.back());
}

Observed Observe(SysfsIo& io, const BoardInfo& board) {
  Observed o;
  o.online = OnlineCpus(io, board);
  for (const CpuCluster& c : board.clusters) {
    auto it = std::find_first_of(c.cpus.begin(), c.cpus.end(),
                                 o.online.begin(), o.online.end());
    if (it == c.cpus.end()) continue;
    const std::string f =
        absl::StrCat(kCpuDir, "/cpu", *it, "/cpufreq/scaling_cur_freq");
    absl::StatusOr<int64_t> khz = ReadInt(io, f);
    if (!khz.ok()) o.errors.push_back(std::string(khz.status().message()));
    o.clusters.emplace_back(CpuRange(c.cpus), khz.ok() ? *khz : -1);
    if (std::find(c.cpus.begin(), c.cpus.end(), 0) != c.cpus.end() &&
        khz.ok()) {
      o.cpu0_khz = *khz;
    }
  }
  if (board.gpu.present) {
    absl::StatusOr<int64_t> hz =
        ReadInt(io, board.gpu.devfreq_dir + "/cur_freq");
    if (hz.ok()) o.gpu_hz = *hz;
    else o.errors.push_back(std::string(hz.status().message()));
  }
  if (board.emc.present) {
    absl::StatusOr<int64_t> hz = ReadInt(io, board.emc.RatePath());
    if (hz.ok()) o.mem_hz = *hz;
    else o.errors.push_back(std::string(hz.status().message()));
  }
  return o;
}

bool Settled(const Observed& o, const ModePlan& plan) {
  if (plan.cpu_cores > 0 &&
      static_cast<int>(o.online.size()) != plan.cpu_cores) {
    return false;
  }
  if (plan.cpu_freq_khz > 0) {
    for (const auto& [name, khz] : o.clusters) {
      if (khz != plan.cpu_freq_khz) return false;
    }
  }
  if (plan.gpu_freq_hz > 0 && o.gpu_hz != plan.gpu_freq_hz) return false;
  if (plan.mem_freq_hz > 0 && o.mem_hz != plan.mem_freq_hz) return false;
  return true;
}

bool SameReadings(const Observed& a, const Observed& b) {
  return a.online == b.online && a.clusters == b.clusters &&
         a.gpu_hz == b.gpu_hz && a.mem_hz == b.mem_hz;
}

}  // namespace

absl::Duration MinSettle(const ModePlan& plan) {
  return ClockSettleLatency(plan.cpu_cores > 0 || plan.cpu_freq_khz > 0,
                            plan.gpu_freq_hz > 0, plan.mem_freq_hz > 0);
}

std::vector<int> OnlineCpus(SysfsIo& io, const BoardInfo& board) {
  std::vector<int> online;
  for (int cpu : board.cpus) {
    absl::StatusOr<int64_t> on = ReadInt(io, BoardInfo::OnlinePath(cpu));
    if (on.ok() ? *on != 0 : cpu == 0) online.push_back(cpu);
  }
  return online;
}

v1::AppliedPowerMode ReadBack(SysfsIo& io, const BoardInfo& board,
                              const v1::PowerMode& requested,
                              const ModePlan& plan, Clock* clock,
                              const SettleOptions& settle) {
  const int64_t start = clock->MonotonicNanos();
  const int64_t deadline = start + absl::ToInt64Nanoseconds(settle.timeout);
  const int64_t min_wait = absl::ToInt64Nanoseconds(MinSettle(plan));
  // Settled: the values match the plan, read the same twice in a row, and
  // at least the documented latency of the slowest knob written has
  // passed. Nothing written: nothing to wait for.
  Observed o = Observe(io, board);
  Observed prev;
  bool have_prev = false;
  int64_t now = start;
  while (!plan.empty() && now < deadline &&
         !(Settled(o, plan) && have_prev && SameReadings(prev, o) &&
           now - start >= min_wait)) {
    clock->SleepFor(settle.poll);
    prev = std::move(o);
    have_prev = true;
    o = Observe(io, board);
    now = clock->MonotonicNanos();
  }
  v1::AppliedPowerMode applied;
  applied.set_settle_s(static_cast<double>(now - start) / 1e9);
  *applied.mutable_requested() = requested;
  v1::PowerMode* actual = applied.mutable_actual();
  actual->set_preset(requested.preset());
  actual->set_cpu_cores(static_cast<int32_t>(o.online.size()));
  actual->set_cpu_freq_khz(o.cpu0_khz);
  actual->set_gpu_freq_hz(o.gpu_hz);
  actual->set_mem_freq_hz(o.mem_hz);
  applied.set_cores_provenance(v1::PROVENANCE_MEASURED);
  applied.set_cpu_freq_provenance(v1::PROVENANCE_MEASURED);
  for (const std::string& n : plan.notes) applied.add_notes(n);
  if (plan.cpu_cores > 0 &&
      static_cast<int>(o.online.size()) != plan.cpu_cores) {
    applied.add_notes(absl::StrCat("cpu_cores: requested ", plan.cpu_cores,
                                   ", online CPUs are [",
                                   absl::StrJoin(o.online, ","), "]"));
  }
  if (plan.cpu_freq_khz > 0) {
    for (const auto& [name, khz] : o.clusters) {
      if (khz == plan.cpu_freq_khz) continue;
      applied.add_notes(absl::StrCat(
          "cpu_freq_khz: requested ", plan.cpu_freq_khz, " kHz, cluster ",
          name, " runs ", khz, " kHz (clamped by the kernel: nvpmodel cap "
          "or thermal limit)"));
    }
  }
  if (plan.gpu_freq_hz > 0 && o.gpu_hz != plan.gpu_freq_hz) {
    applied.add_notes(absl::StrCat(
        "gpu_freq_hz: requested ", plan.gpu_freq_hz, " Hz, the GPU runs ",
        o.gpu_hz, " Hz (clamped by the kernel)"));
  }
  if (plan.mem_freq_hz > 0 && o.mem_hz != plan.mem_freq_hz) {
    applied.add_notes(absl::StrCat(
        "mem_freq_hz: requested ", plan.mem_freq_hz, " Hz, EMC runs ",
        o.mem_hz, " Hz (clamped: nvpmodel EMC cap)"));
  }
  for (const std::string& e : o.errors) {
    applied.add_notes(absl::StrCat("read-back failed: ", e));
  }
  if (!board.emc.present) {
    applied.add_notes(
        "mem_freq_hz: EMC not readable (no BPMP debugfs, no bwmgr devfreq, "
        "or not root)");
  }
  return applied;
}

}  // namespace jetson
}  // namespace powersweep
