// Readers of /proc files rooted at a configurable directory (default
// "/proc"; tests pass a fixture directory). Each reader keeps its file open
// and re-reads it with pread.
//
// Pure parsing functions are exposed for tests; readers are not
// thread-safe (one sampler thread owns them).
#ifndef POWERSWEEP_AGENT_TELEMETRY_PROC_READERS_H_
#define POWERSWEEP_AGENT_TELEMETRY_PROC_READERS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {

// Jiffies of one CPU line of /proc/stat.
struct CpuTimes {
  uint64_t total = 0;  // user+nice+system+idle+iowait+irq+softirq+steal
  uint64_t idle = 0;   // idle + iowait
  uint64_t Busy() const { return total - idle; }
};

// Per-core times keyed by CPU number ("cpuN" lines; the aggregate "cpu"
// line is skipped). InvalidArgument naming the line when malformed.
absl::StatusOr<std::map<int, CpuTimes>> ParseProcStat(const std::string& text);

// Busy fraction of `cpu` between two snapshots, in [0, 1]; 0 when the CPU
// is missing from either or no time elapsed.
double CoreUtilization(const std::map<int, CpuTimes>& before,
                       const std::map<int, CpuTimes>& after, int cpu);

struct MemInfo {
  int64_t total_bytes = 0;
  int64_t available_bytes = 0;
  int64_t UsedBytes() const { return total_bytes - available_bytes; }
};
// MemTotal and MemAvailable (kB in the file); InvalidArgument naming the
// missing key.
absl::StatusOr<MemInfo> ParseMeminfo(const std::string& text);

struct ProcessUsage {
  double cpu_s = 0;        // utime + stime
  int64_t rss_bytes = 0;   // VmRSS
};
// utime+stime (fields 14 and 15) of /proc/<pid>/stat in clock ticks.
absl::StatusOr<uint64_t> ParsePidStatTicks(const std::string& text);
// VmRSS of /proc/<pid>/status in bytes.
absl::StatusOr<int64_t> ParseStatusRss(const std::string& text);

class ProcStatReader {
 public:
  explicit ProcStatReader(const std::string& proc_root = "/proc");
  absl::StatusOr<std::map<int, CpuTimes>> Read();

 private:
  ProcFile file_;
};

class MeminfoReader {
 public:
  explicit MeminfoReader(const std::string& proc_root = "/proc");
  absl::StatusOr<MemInfo> Read();

 private:
  ProcFile file_;
};

// Reads one process's CPU time and RSS. ticks_per_s 0 = sysconf(_SC_CLK_TCK).
class ProcessReader {
 public:
  ProcessReader(const std::string& proc_root, int pid, long ticks_per_s = 0);
  absl::StatusOr<ProcessUsage> Read();

 private:
  ProcFile stat_;
  ProcFile status_;
  long ticks_per_s_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_PROC_READERS_H_
