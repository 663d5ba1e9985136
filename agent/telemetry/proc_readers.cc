#include "agent/telemetry/proc_readers.h"

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace powersweep {

absl::StatusOr<std::map<int, CpuTimes>> ParseProcStat(const std::string& text) {
  std::map<int, CpuTimes> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "cpu") || line.size() < 4 ||
        line[3] < '0' || line[3] > '9') {
      continue;
    }
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    int cpu = 0;
    if (f.size() < 5 || !absl::SimpleAtoi(f[0].substr(3), &cpu)) {
      return absl::InvalidArgumentError(
          absl::StrCat("/proc/stat: malformed line \"", line, "\""));
    }
    uint64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 1; i < f.size() && i <= 8; ++i) {
      if (!absl::SimpleAtoi(f[i], &v[i - 1])) {
        return absl::InvalidArgumentError(
            absl::StrCat("/proc/stat: malformed line \"", line, "\""));
      }
    }
    CpuTimes t;
    for (uint64_t x : v) t.total += x;  // guest is already in user
    t.idle = v[3] + v[4];               // idle + iowait
    out[cpu] = t;
  }
  return out;
}

double CoreUtilization(const std::map<int, CpuTimes>& before,
                       const std::map<int, CpuTimes>& after, int cpu) {
  auto b = before.find(cpu);
  auto a = after.find(cpu);
  if (b == before.end() || a == after.end()) return 0.0;
  if (a->second.total <= b->second.total) return 0.0;
  double dt = static_cast<double>(a->second.total - b->second.total);
  double busy_after = static_cast<double>(a->second.Busy());
  double busy_before = static_cast<double>(b->second.Busy());
  double u = (busy_after - busy_before) / dt;
  if (u < 0) return 0.0;
  if (u > 1) return 1.0;
  return u;
}

namespace {

// Value of "Key:   123 kB" in kB, or -1 when absent.
int64_t FindKb(const std::string& text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, key) || line.size() <= key.size() ||
        line[key.size()] != ':') {
      continue;
    }
    std::vector<absl::string_view> f =
        absl::StrSplit(line.substr(key.size() + 1), absl::ByAnyChar(" \t"),
                       absl::SkipEmpty());
    int64_t v = 0;
    if (!f.empty() && absl::SimpleAtoi(f[0], &v)) return v;
    return -1;
  }
  return -1;
}

}  // namespace

absl::StatusOr<MemInfo> ParseMeminfo(const std::string& text) {
  MemInfo m;
  int64_t total = FindKb(text, "MemTotal");
  int64_t avail = FindKb(text, "MemAvailable");
  if (total < 0) return absl::InvalidArgumentError("meminfo: no MemTotal");
  if (avail < 0) return absl::InvalidArgumentError("meminfo: no MemAvailable");
  m.total_bytes = total * 1024;
  m.available_bytes = avail * 1024;
  return m;
}

absl::StatusOr<PidStat> ParsePidStat(absl::string_view text) {
  // The command name may contain spaces and ')'; fields restart after the
  // last ')'. Field 3 (state) is the first token there.
  size_t close = text.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError("pid stat: no ')' after the command");
  }
  absl::string_view rest = text.substr(close + 1);
  // Tokens 11, 12 and 21 after the ')' are fields 14, 15 and 24.
  absl::string_view tok[22];
  int n = 0;
  for (size_t i = 0; i < rest.size() && n < 22;) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    size_t j = i;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\n') ++j;
    if (j > i) tok[n++] = rest.substr(i, j - i);
    i = j + 1;
  }
  PidStat out;
  uint64_t utime = 0, stime = 0;
  if (n < 13 || !absl::SimpleAtoi(tok[11], &utime) ||
      !absl::SimpleAtoi(tok[12], &stime)) {
    return absl::InvalidArgumentError("pid stat: malformed utime/stime");
  }
  out.ticks = utime + stime;
  if (n < 22 || !absl::SimpleAtoi(tok[21], &out.rss_pages)) {
    return absl::InvalidArgumentError("pid stat: malformed rss");
  }
  return out;
}

ProcStatReader::ProcStatReader(const std::string& proc_root)
    : file_(proc_root + "/stat") {}

absl::StatusOr<std::map<int, CpuTimes>> ProcStatReader::Read() {
  PS_RETURN_IF_ERROR(file_.ReadInto(&text_));
  return ParseProcStat(text_);
}

MeminfoReader::MeminfoReader(const std::string& proc_root)
    : file_(proc_root + "/meminfo") {}

absl::StatusOr<MemInfo> MeminfoReader::Read() {
  PS_RETURN_IF_ERROR(file_.ReadInto(&text_));
  return ParseMeminfo(text_);
}

ProcessReader::ProcessReader(const std::string& proc_root, int pid,
                             long ticks_per_s, long page_bytes)
    : stat_(absl::StrCat(proc_root, "/", pid, "/stat")),
      ticks_per_s_(ticks_per_s > 0 ? ticks_per_s : sysconf(_SC_CLK_TCK)),
      page_bytes_(page_bytes > 0 ? page_bytes : sysconf(_SC_PAGESIZE)) {}

absl::StatusOr<ProcessUsage> ProcessReader::Read() {
  PS_RETURN_IF_ERROR(stat_.ReadInto(&text_));
  PS_ASSIGN_OR_RETURN(PidStat stat, ParsePidStat(text_));
  ProcessUsage u;
  u.cpu_s = static_cast<double>(stat.ticks) / static_cast<double>(ticks_per_s_);
  u.rss_bytes = stat.rss_pages * page_bytes_;
  return u;
}

}  // namespace powersweep
