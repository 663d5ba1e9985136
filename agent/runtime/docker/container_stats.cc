#include "agent/runtime/docker/container_stats.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <system_error>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

bool IsV2(const std::string& root) {
  std::error_code ec;
  return std::filesystem::exists(root + "/cgroup.controllers", ec);
}

std::string Dir(const std::string& root, const std::string& controller,
                const std::string& path) {
  return controller.empty() ? absl::StrCat(root, "/", path)
                            : absl::StrCat(root, "/", controller, "/", path);
}

absl::StatusOr<int64_t> ReadInt(ProcFile& f) {
  PS_ASSIGN_OR_RETURN(std::string text, f.Read());
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &v)) {
    return absl::InvalidArgumentError(
        absl::StrCat(f.path(), ": not an integer: \"",
                     absl::StripAsciiWhitespace(text).substr(0, 40), "\""));
  }
  return v;
}

// "key value" lines (cpuacct.stat, cpu.stat).
absl::StatusOr<std::map<std::string, int64_t>> ReadKeyValues(ProcFile& f) {
  PS_ASSIGN_OR_RETURN(std::string text, f.Read());
  std::map<std::string, int64_t> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> parts =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    int64_t v = 0;
    if (parts.size() == 2 && absl::SimpleAtoi(parts[1], &v)) {
      out[std::string(parts[0])] = v;
    }
  }
  return out;
}

absl::StatusOr<int64_t> Key(const std::map<std::string, int64_t>& kv,
                            const std::string& key, const std::string& file) {
  auto it = kv.find(key);
  if (it == kv.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": no \"", key, "\" line"));
  }
  return it->second;
}

}  // namespace

CgroupStatsReader::CgroupStatsReader(const std::string& root,
                                     const std::string& path)
    : v2_(IsV2(root)),
      cpu_usage_(v2_ ? Dir(root, "", path) + "/cpu.stat"
                     : Dir(root, "cpuacct", path) + "/cpuacct.usage"),
      cpu_stat_(v2_ ? "" : Dir(root, "cpuacct", path) + "/cpuacct.stat"),
      mem_usage_(v2_ ? Dir(root, "", path) + "/memory.current"
                     : Dir(root, "memory", path) + "/memory.usage_in_bytes"),
      mem_peak_(v2_ ? Dir(root, "", path) + "/memory.peak"
                    : Dir(root, "memory", path) + "/memory.max_usage_in_bytes"),
      mem_stat_(Dir(root, v2_ ? "" : "memory", path) + "/memory.stat") {}

absl::StatusOr<ContainerStats> CgroupStatsReader::Read() {
  ContainerStats s;
  if (v2_) {
    absl::StatusOr<std::map<std::string, int64_t>> cpu =
        ReadKeyValues(cpu_usage_);
    if (!cpu.ok()) return cpu.status();
    for (auto [key, out] : {std::pair{"usage_usec", &s.cpu_s},
                            std::pair{"user_usec", &s.cpu_user_s},
                            std::pair{"system_usec", &s.cpu_system_s}}) {
      PS_ASSIGN_OR_RETURN(int64_t us, Key(*cpu, key, cpu_usage_.path()));
      *out = us * 1e-6;
    }
  } else {
    PS_ASSIGN_OR_RETURN(int64_t ns, ReadInt(cpu_usage_));
    s.cpu_s = ns * 1e-9;
    absl::StatusOr<std::map<std::string, int64_t>> st =
        ReadKeyValues(cpu_stat_);
    if (!st.ok()) return st.status();
    static const double kTick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
    absl::StatusOr<int64_t> user = Key(*st, "user", cpu_stat_.path());
    absl::StatusOr<int64_t> sys = Key(*st, "system", cpu_stat_.path());
    if (!user.ok()) return user.status();
    if (!sys.ok()) return sys.status();
    s.cpu_user_s = *user * kTick;
    s.cpu_system_s = *sys * kTick;
  }
  PS_ASSIGN_OR_RETURN(int64_t usage, ReadInt(mem_usage_));
  s.memory_usage_bytes = usage;
  absl::StatusOr<int64_t> peak = ReadInt(mem_peak_);
  if (peak.ok()) {
    s.memory_peak_bytes = *peak;
  } else if (!v2_) {  // v2 kernels before 5.19 have no memory.peak
    return peak.status();
  }
  PS_ASSIGN_OR_RETURN(CgroupMemoryStat mem, mem_stat_.Read());
  s.memory = mem;
  return s;
}

absl::Status RemoveCgroupDirs(const std::string& root,
                              const std::string& path) {
  std::vector<std::string> dirs;
  if (IsV2(root)) {
    dirs.push_back(Dir(root, "", path));
  } else {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
      std::error_code dir_ec;
      if (entry.is_directory(dir_ec)) {
        dirs.push_back(absl::StrCat(entry.path().string(), "/", path));
      }
    }
  }
  std::vector<std::string> failed;
  for (const std::string& d : dirs) {
    if (rmdir(d.c_str()) != 0 && errno != ENOENT) {
      failed.push_back(absl::StrCat(d, " (", strerror(errno), ")"));
    }
  }
  if (!failed.empty()) {
    return absl::InternalError(absl::StrCat(
        "cannot remove cgroup directories: ", absl::StrJoin(failed, ", ")));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParseVmHwm(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, "VmHWM:")) continue;
    line = absl::StripAsciiWhitespace(line);
    absl::ConsumeSuffix(&line, "kB");
    int64_t kb = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &kb)) {
      return kb * 1024;
    }
  }
  return absl::InvalidArgumentError("status: no VmHWM line");
}

}  // namespace powersweep
