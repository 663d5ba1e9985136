// Per-container (per-tenant) statistics from the container's cgroup.
//
// CgroupStatsReader reads one cgroup, given the cgroup filesystem root and
// the cgroup's path below it, in either layout:
// - v1 (a directory per controller): cpuacct/<path>/cpuacct.usage (ns) and
//   cpuacct.stat (user/system ticks); memory/<path>/memory.usage_in_bytes,
//   memory.max_usage_in_bytes and memory.stat.
// - v2 (<root>/cgroup.controllers exists): <path>/cpu.stat (usage_usec,
//   user_usec, system_usec), memory.current, memory.peak (0 when the kernel
//   has none) and memory.stat.
// Every value is hierarchical (includes descendant cgroups), so reading
// the per-run parent cgroup DockerRuntime creates gives the container's
// totals, also after the engine removed the container's own cgroup.
// Errors name the file. Not thread-safe (one owner; DockerRuntime guards
// it).
//
// RemoveCgroupDirs(root, path) removes the cgroup's directory in every
// hierarchy (v1: every directory under root that has it); a directory
// already gone is fine. The error names the directories it could not
// remove.
//
// ParseVmHwm(text): the VmHWM line of /proc/<pid>/status in bytes (the
// process's peak resident set, the quantity getrusage reports as
// ru_maxrss); InvalidArgument when absent.
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_STATS_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_STATS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/telemetry/kernel_counters.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {

struct ContainerStats {
  double cpu_s = 0;  // CPU time of every process in the container
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  int64_t memory_usage_bytes = 0;  // now, page cache included
  int64_t memory_peak_bytes = 0;   // high-water mark, page cache included
  CgroupMemoryStat memory;         // page faults, dirty, write-back, ...
  // Peak resident set of the workload process itself (VmHWM, last read
  // while it ran; 0 if never read): comparable with a native run's
  // ru_maxrss, unlike memory_peak_bytes.
  int64_t workload_peak_rss_bytes = 0;
};

class CgroupStatsReader {
 public:
  CgroupStatsReader(const std::string& cgroup_root,
                    const std::string& cgroup_path);
  absl::StatusOr<ContainerStats> Read();
  bool v2() const { return v2_; }

 private:
  bool v2_ = false;
  ProcFile cpu_usage_;  // v1 cpuacct.usage; v2 cpu.stat
  ProcFile cpu_stat_;   // v1 cpuacct.stat; v2 unused
  ProcFile mem_usage_;
  ProcFile mem_peak_;
  CgroupMemoryStatReader mem_stat_;
};

absl::Status RemoveCgroupDirs(const std::string& cgroup_root,
                              const std::string& cgroup_path);

absl::StatusOr<int64_t> ParseVmHwm(absl::string_view status_text);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_CONTAINER_STATS_H_
