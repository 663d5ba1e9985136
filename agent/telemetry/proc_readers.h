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
#include "absl/strings/string_view.h"
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
  int64_t rss_bytes = 0;   // resident set (the same count as VmRSS)
};
struct PidStat {
  uint64_t ticks = 0;      // utime + stime (fields 14 and 15)
  int64_t rss_pages = 0;   // field 24
};
// The fields above of /proc/<pid>/stat.
absl::StatusOr<PidStat> ParsePidStat(absl::string_view text);

class ProcStatReader {
 public:
  explicit ProcStatReader(const std::string& proc_root = "/proc");
  absl::StatusOr<std::map<int, CpuTimes>> Read();

 private:
  ProcFile file_;
  std::string text_;  // reused between reads
};

class MeminfoReader {
 public:
  explicit MeminfoReader(const std::string& proc_root = "/proc");
  absl::StatusOr<MemInfo> Read();

 private:
  ProcFile file_;
  std::string text_;  // reused between reads
};

// Reads one process's CPU time and RSS from /proc/<pid>/stat alone (one
// read per sample). ticks_per_s 0 = sysconf(_SC_CLK_TCK), page_bytes 0 =
// sysconf(_SC_PAGESIZE).
class ProcessReader {
 public:
  ProcessReader(const std::string& proc_root, int pid, long ticks_per_s = 0,
                long page_bytes = 0);
  absl::StatusOr<ProcessUsage> Read();

 private:
  ProcFile stat_;
  std::string text_;  // reused between reads
  long ticks_per_s_;
  long page_bytes_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_PROC_READERS_H_
