#include "agent/platform/host/cpu_quota.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ListsController(const std::string& controllers_file) {
  std::error_code ec;
  if (!std::filesystem::exists(controllers_file, ec)) return false;
  for (absl::string_view c :
       absl::StrSplit(ReadAll(controllers_file), absl::ByAnyChar(" \n"),
                      absl::SkipEmpty())) {
    if (c == "cpu") return true;
  }
  return false;
}

absl::Status MakeDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directory(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir, ": cannot create the cgroup: ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteSysFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": cannot open for writing: ", strerror(errno)));
  }
  ssize_t n = write(fd, text.data(), text.size());
  int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": writing '", text, "' failed: ",
        n < 0 ? strerror(err) : "short write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<CpuQuota> QuotaForFrequency(int64_t freq_khz, int64_t max_khz,
                                           int cpus, int64_t period_us) {
  if (freq_khz <= 0 || max_khz <= 0 || cpus <= 0 || period_us <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu_freq_khz: cannot emulate ", freq_khz, " kHz of ", max_khz,
        " kHz on ", cpus, " CPUs"));
  }
  const double ratio =
      std::min(1.0, static_cast<double>(freq_khz) / static_cast<double>(max_khz));
  CpuQuota q;
  q.period_us = period_us;
  q.quota_us = std::max<int64_t>(
      kMinQuotaUs, std::llround(static_cast<double>(period_us) * cpus * ratio));
  return q;
}

int64_t EmulatedFrequencyKhz(const CpuQuota& quota, int64_t max_khz,
                             int cpus) {
  if (quota.period_us <= 0 || cpus <= 0) return 0;
  const double ratio = static_cast<double>(quota.quota_us) /
                       (static_cast<double>(quota.period_us) * cpus);
  return std::llround(std::min(1.0, ratio) * static_cast<double>(max_khz));
}

absl::StatusOr<CpuQuotaCgroup> CpuQuotaCgroup::Open(
    const std::string& cgroup_root, const std::string& name) {
  for (const std::string& v2root : {cgroup_root, cgroup_root + "/unified"}) {
    if (!ListsController(v2root + "/cgroup.controllers")) continue;
    const std::string subtree = v2root + "/cgroup.subtree_control";
    if (!absl::StrContains(ReadAll(subtree), "cpu")) {
      PS_RETURN_IF_ERROR(WriteSysFile(subtree, "+cpu"));
    }
    const std::string dir = v2root + "/" + name;
    PS_RETURN_IF_ERROR(MakeDir(dir));
    return CpuQuotaCgroup(Version::kV2, dir);
  }
  const std::string v1 = cgroup_root + "/cpu";
  std::error_code ec;
  if (std::filesystem::exists(v1 + "/cpu.cfs_quota_us", ec)) {
    const std::string dir = v1 + "/" + name;
    PS_RETURN_IF_ERROR(MakeDir(dir));
    return CpuQuotaCgroup(Version::kV1, dir);
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "cpu_freq_khz: no cpufreq and no CPU bandwidth control to emulate it: "
      "neither ", cgroup_root, "/cgroup.controllers nor ", cgroup_root,
      "/unified/cgroup.controllers lists the cpu controller (cgroup v2), and ",
      v1, "/cpu.cfs_quota_us does not exist (cgroup v1)"));
}

std::string CpuQuotaCgroup::QuotaFile() const {
  return dir_ + (version_ == Version::kV2 ? "/cpu.max" : "/cpu.cfs_quota_us");
}

absl::Status CpuQuotaCgroup::Set(const CpuQuota& q) {
  if (version_ == Version::kV2) {
    return WriteSysFile(QuotaFile(), absl::StrCat(q.quota_us, " ", q.period_us));
  }
  PS_RETURN_IF_ERROR(
      WriteSysFile(dir_ + "/cpu.cfs_period_us", absl::StrCat(q.period_us)));
  return WriteSysFile(QuotaFile(), absl::StrCat(q.quota_us));
}

absl::Status CpuQuotaCgroup::Clear() {
  if (version_ == Version::kV2) {
    return WriteSysFile(QuotaFile(), absl::StrCat("max ", kQuotaPeriodUs));
  }
  return WriteSysFile(QuotaFile(), "-1");
}

absl::Status CpuQuotaCgroup::Attach(int pid) {
  return WriteSysFile(dir_ + "/cgroup.procs", absl::StrCat(pid));
}

void CpuQuotaCgroup::Remove() {
  // A cgroup directory is removed with rmdir (its files are virtual); it
  // fails while processes are still in it, which is fine: best effort.
  rmdir(dir_.c_str());
}

}  // namespace powersweep
