// Kernel memory counters (the Appl. Sci. study's set): page faults (minor
// and major), dirty and write-back pages, pages written back.
//
// System-wide, from /proc/vmstat (ParseVmstat, VmstatReader):
//   pgfault          page faults since boot, minor and major together
//   pgmajfault       major page faults (needed I/O) since boot
//   nr_dirty         pages dirty now (a gauge)
//   nr_writeback     pages under write-back now (a gauge)
//   pgpgout          KiB paged out to block devices since boot (the kernel
//                    counts this one in KiB, whatever its name says)
//   nr_written       pages written back since boot
// A missing key, or a used key whose value is not an integer, is
// InvalidArgument naming the key or the line; other lines are ignored
// (ParseVmstat parses only these six values, without allocating).
//
// Per cgroup, from memory.stat (ParseCgroupMemoryStat,
// CgroupMemoryStatReader), cgroup v1 or v2 keys. For v1 the hierarchical
// "total_<key>" is used when present (it includes descendant cgroups, and
// keeps their counts after they are removed), else "<key>":
//   anon_bytes        v1 rss            v2 anon
//   file_bytes        v1 cache          v2 file
//   mapped_file_bytes v1 mapped_file    v2 file_mapped
//   dirty_bytes       v1 dirty          v2 file_dirty
//   writeback_bytes   v1 writeback      v2 file_writeback
//   pgfault, pgmajfault                 both (events)
//   pgpgin/pgpgout    v1 only: charge and uncharge events of the cgroup, in
//                     pages (not disk I/O); absent on v2.
// cgroups have no per-group "pages written back" counter: write-back of
// a group's dirty pages is done by kernel flusher threads (v1 attributes it
// to no group), so that one is system-wide only.
//
// Parsers are pure and thread-safe; readers keep their file open and are
// not thread-safe (one owner).
#ifndef POWERSWEEP_AGENT_TELEMETRY_KERNEL_COUNTERS_H_
#define POWERSWEEP_AGENT_TELEMETRY_KERNEL_COUNTERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {

struct VmstatCounters {
  int64_t pgfault = 0;
  int64_t pgmajfault = 0;
  int64_t nr_dirty_pages = 0;
  int64_t nr_writeback_pages = 0;
  int64_t pgpgout_kib = 0;
  int64_t nr_written_pages = 0;
};

absl::StatusOr<VmstatCounters> ParseVmstat(absl::string_view text);

struct CgroupMemoryStat {
  bool cgroup_v2 = false;  // which key set the text used
  int64_t anon_bytes = 0;
  int64_t file_bytes = 0;
  int64_t mapped_file_bytes = 0;
  int64_t dirty_bytes = 0;
  int64_t writeback_bytes = 0;
  int64_t pgfault = 0;
  int64_t pgmajfault = 0;
  std::optional<int64_t> pgpgin_events;   // v1 only
  std::optional<int64_t> pgpgout_events;  // v1 only
};

// InvalidArgument naming the missing key (anon/rss, file/cache, dirty,
// writeback, pgfault, pgmajfault) or the malformed line.
absl::StatusOr<CgroupMemoryStat> ParseCgroupMemoryStat(absl::string_view text);

class VmstatReader {
 public:
  explicit VmstatReader(const std::string& proc_root = "/proc");
  absl::StatusOr<VmstatCounters> Read();

 private:
  ProcFile file_;
  std::string text_;  // reused between reads
};

class CgroupMemoryStatReader {
 public:
  // `memory_stat_path`: the cgroup's memory.stat file.
  explicit CgroupMemoryStatReader(std::string memory_stat_path);
  // Errors name the file.
  absl::StatusOr<CgroupMemoryStat> Read();

 private:
  ProcFile file_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_KERNEL_COUNTERS_H_
