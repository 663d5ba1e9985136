#include "agent/telemetry/proc_readers.h"

#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

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

absl::StatusOr<uint64_t> ParsePidStatTicks(const std::string& text) {
  // The command name may contain spaces and ')'; fields restart after the
  // last ')'. Field 3 (state) is the first token there; utime is field 14.
  size_t close = text.rfind(')');
  if (close == std::string::npos) {
    return absl::InvalidArgumentError("pid stat: no ')' after the command");
  }
  std::vector<absl::string_view> f = absl::StrSplit(
      absl::string_view(text).substr(close + 1), ' ', absl::SkipEmpty());
  uint64_t utime = 0, stime = 0;
  if (f.size() < 13 || !absl::SimpleAtoi(f[11], &utime) ||
      !absl::SimpleAtoi(f[12], &stime)) {
    return absl::InvalidArgumentError("pid stat: malformed utime/stime");
  }
  return utime + stime;
}

absl::StatusOr<int64_t> ParseStatusRss(const std::string& text) {
  int64_t kb = FindKb(text, "VmRSS");
  if (kb < 0) return absl::InvalidArgumentError("pid status: no VmRSS");
  return kb * 1024;
}

ProcStatReader::ProcStatReader(const std::string& proc_root)
    : file_(proc_root + "/stat") {}

absl::StatusOr<std::map<int, CpuTimes>> ProcStatReader::Read() {
  absl::StatusOr<std::string> text = file_.Read();
  if (!text.ok()) return text.status();
  return ParseProcStat(*text);
}

MeminfoReader::MeminfoReader(const std::string& proc_root)
    : file_(proc_root + "/meminfo") {}

absl::StatusOr<MemInfo> MeminfoReader::Read() {
  absl::StatusOr<std::string> text = file_.Read();
  if (!text.ok()) return text.status();
  return ParseMeminfo(*text);
}

ProcessReader::ProcessReader(const std::string& proc_root, int pid,
                             long ticks_per_s)
    : stat_(absl::StrCat(proc_root, "/", pid, "/stat")),
      status_(absl::StrCat(proc_root, "/", pid, "/status")),
      ticks_per_s_(ticks_per_s > 0 ? ticks_per_s : sysconf(_SC_CLK_TCK)) {}

absl::StatusOr<ProcessUsage> ProcessReader::Read() {
  absl::StatusOr<std::string> stat = stat_.Read();
  if (!stat.ok()) return stat.status();
  absl::StatusOr<uint64_t> ticks = ParsePidStatTicks(*stat);
  if (!ticks.ok()) return ticks.status();
  absl::StatusOr<std::string> status = status_.Read();
  if (!status.ok()) return status.status();
  absl::StatusOr<int64_t> rss = ParseStatusRss(*status);
  if (!rss.ok()) return rss.status();
  ProcessUsage u;
  u.cpu_s = static_cast<double>(*ticks) / static_cast<double>(ticks_per_s_);
  u.rss_bytes = *rss;
  return u;
}

}  // namespace powersweep
