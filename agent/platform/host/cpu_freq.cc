#include "agent/platform/host/cpu_freq.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

int64_t ReadKhz(const std::string& path) {
  int64_t v = 0;
  return absl::SimpleAtoi(FirstLine(path), &v) ? v : 0;
}

// Highest "cpu MHz : 2000.000" of /proc/cpuinfo, in kHz; 0 if none.
int64_t CpuinfoMaxKhz(const std::string& proc_root) {
  std::ifstream in(proc_root + "/cpuinfo");
  std::string line;
  double best = 0;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, "cpu MHz")) continue;
    std::vector<std::string> kv = absl::StrSplit(line, ':');
    double mhz = 0;
    if (kv.size() == 2 &&
        absl::SimpleAtod(absl::StripAsciiWhitespace(kv[1]), &mhz)) {
      best = std::max(best, mhz);
    }
  }
  return std::llround(best * 1000);
}

}  // namespace

HostCpuFrequency::HostCpuFrequency(HostCpuFrequencyOptions options,
                                   std::vector<int> all_cpus)
    : options_(std::move(options)) {
  std::error_code ec;
  has_cpufreq_ = !all_cpus.empty();
  for (int cpu : all_cpus) {
    if (!std::filesystem::exists(CpufreqFile(cpu, "scaling_max_freq"), ec)) {
      has_cpufreq_ = false;
    }
  }
  if (has_cpufreq_) {
    max_khz_ = ReadKhz(CpufreqFile(all_cpus[0], "cpuinfo_max_freq"));
    min_khz_ = ReadKhz(CpufreqFile(all_cpus[0], "cpuinfo_min_freq"));
  }
  if (max_khz_ <= 0) max_khz_ = options_.max_khz;
  if (max_khz_ <= 0) max_khz_ = CpuinfoMaxKhz(options_.proc_root);
}

HostCpuFrequency::~HostCpuFrequency() {
  Restore();
  if (cgroup_.has_value()) cgroup_->Remove();
}

std::string HostCpuFrequency::CpufreqFile(int cpu,
                                          const std::string& file) const {
  return absl::StrCat(options_.sys_root, "/devices/system/cpu/cpu", cpu,
                      "/cpufreq/", file);
}

std::vector<int64_t> HostCpuFrequency::Available() const {
  std::vector<int64_t> out;
  if (max_khz_ <= 0) return out;
  if (has_cpufreq_) {
    // cpu0's list: the file is per policy and hosts have one table.
    std::string text = FirstLine(absl::StrCat(
        options_.sys_root,
        "/devices/system/cpu/cpu0/cpufreq/scaling_available_frequencies"));
    for (absl::string_view f : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
      int64_t v = 0;
      if (absl::SimpleAtoi(f, &v)) out.push_back(v);
    }
    if (out.empty()) out = {min_khz_, max_khz_};
    std::sort(out.begin(), out.end());
    return out;
  }
  for (int k = 1; k <= 10; ++k) out.push_back(max_khz_ * k / 10);
  return out;
}

absl::StatusOr<FrequencySetting> HostCpuFrequency::Set(
    int64_t khz, const std::vector<int>& cpus) {
  if (khz < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cpu_freq_khz: must not be negative, got ", khz));
  }
  if (khz == 0) {
    Restore();
    return FrequencySetting{};
  }
  if (max_khz_ <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cpu_freq_khz: the maximum CPU frequency is unknown (no cpufreq, "
        "no 'cpu MHz' in ", options_.proc_root, "/cpuinfo)"));
  }
  if (has_cpufreq_) return SetCpufreq(khz, cpus);
  return SetQuota(khz, static_cast<int>(cpus.size()));
}

absl::StatusOr<FrequencySetting> HostCpuFrequency::SetCpufreq(
    int64_t khz, const std::vector<int>& cpus) {
  FrequencySetting out;
  out.provenance = v1::PROVENANCE_MEASURED;
  out.actual_khz = max_khz_;
  for (int cpu : cpus) {
    const std::string min_file = CpufreqFile(cpu, "scaling_min_freq");
    const std::string max_file = CpufreqFile(cpu, "scaling_max_freq");
    if (saved_.count(cpu) == 0) {
      saved_[cpu] = {FirstLine(min_file), FirstLine(max_file)};
    }
    // Lowering below the current minimum: min first, then max.
    if (khz < ReadKhz(min_file) && min_khz_ > 0) {
      PS_RETURN_IF_ERROR(WriteSysFile(min_file, absl::StrCat(min_khz_)));
    }
    PS_RETURN_IF_ERROR(WriteSysFile(max_file, absl::StrCat(khz)));
    const int64_t got = ReadKhz(max_file);
    out.actual_khz = std::min(out.actual_khz, got);
    if (got != khz && out.note.empty()) {
      out.note = absl::StrCat("cpu_freq_khz: requested ", khz,
                              " kHz, the kernel set ", got, " kHz in ",
                              max_file);
    }
  }
  set_khz_ = out.actual_khz;
  return out;
}

absl::StatusOr<FrequencySetting> HostCpuFrequency::SetQuota(int64_t khz,
                                                            int cpus) {
  PS_ASSIGN_OR_RETURN(CpuQuota quota, QuotaForFrequency(khz, max_khz_, cpus));
  if (!cgroup_.has_value()) {
    PS_ASSIGN_OR_RETURN(
        CpuQuotaCgroup cg,
        CpuQuotaCgroup::Open(options_.cgroup_root, options_.cgroup_name));
    cgroup_ = std::move(cg);
  }
  PS_RETURN_IF_ERROR(cgroup_->Set(quota));
  quota_active_ = true;
  FrequencySetting out;
  out.actual_khz = EmulatedFrequencyKhz(quota, max_khz_, cpus);
  out.provenance = v1::PROVENANCE_EMULATED;
  out.note = absl::StrCat("cpu_freq_khz: emulated as ", out.actual_khz, " of ",
                          max_khz_, " kHz by a CPU bandwidth quota of ",
                          quota.quota_us, " us per ", quota.period_us,
                          " us for ", cpus, " CPUs in ", cgroup_->QuotaFile());
  set_khz_ = out.actual_khz;
  return out;
}

absl::Status HostCpuFrequency::AttachWorkload(int pid) {
  if (!quota_active_ || !cgroup_.has_value()) return absl::OkStatus();
  return cgroup_->Attach(pid);
}

void HostCpuFrequency::Restore() {
  for (const auto& [cpu, minmax] : saved_) {
    if (!minmax.second.empty()) {
      (void)WriteSysFile(CpufreqFile(cpu, "scaling_max_freq"), minmax.second);
    }
    if (!minmax.first.empty()) {
      (void)WriteSysFile(CpufreqFile(cpu, "scaling_min_freq"), minmax.first);
    }
  }
  saved_.clear();
  if (quota_active_ && cgroup_.has_value()) (void)cgroup_->Clear();
  quota_active_ = false;
  set_khz_ = 0;
}

}  // namespace powersweep
