// HostCpuFrequency: the host platform's CPU-frequency knob.
//
// - Where every run CPU has cpufreq (SYS/devices/system/cpu/cpuN/cpufreq/
//   scaling_max_freq), Set() caps scaling_max_freq of the run CPUs at the
//   request (lowering scaling_min_freq to cpuinfo_min_freq first when the
//   request is below it: min before max when lowering), reads the value
//   back (MEASURED) and reports a value the kernel clamped. Restore() puts
//   the original min/max back (max first: it raises).
// - Otherwise the frequency is EMULATED with a CPU bandwidth quota
//   (cpu_quota.h) on a cgroup CGROUP_ROOT/powersweep-DEVICE created on the
//   first request; f_max is cpuinfo_max_freq, else the highest "cpu MHz"
//   of PROC/cpuinfo, else the option max_khz. AttachWorkload(pid) moves the
//   workload into that cgroup. When no quota can be written the request
//   fails with FailedPrecondition naming the file.
// Frequency 0 means "leave as it is" (and clears an earlier quota).
//
// Not thread-safe: HostPlatform calls it under its mutex.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_CPU_FREQ_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_CPU_FREQ_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/platform/host/cpu_quota.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

struct HostCpuFrequencyOptions {
  std::string sys_root = "/sys";
  std::string proc_root = "/proc";
  std::string cgroup_root = "/sys/fs/cgroup";
  std::string cgroup_name = "powersweep-agent";
  int64_t max_khz = 0;  // 0 = discover
};

struct FrequencySetting {
  int64_t actual_khz = 0;
  v1::Provenance provenance = v1::PROVENANCE_UNSPECIFIED;
  std::string note;
};

class HostCpuFrequency {
 public:
  HostCpuFrequency(HostCpuFrequencyOptions options, std::vector<int> all_cpus);
  // Restores what Set changed and removes the cgroup it created.
  ~HostCpuFrequency();
  HostCpuFrequency(const HostCpuFrequency&) = delete;
  HostCpuFrequency& operator=(const HostCpuFrequency&) = delete;

  bool has_cpufreq() const { return has_cpufreq_; }
  int64_t max_khz() const { return max_khz_; }
  // Frequencies a request may use (cpufreq's available list, or ten even
  // steps of f_max when emulated); empty when f_max is unknown.
  std::vector<int64_t> Available() const;

  absl::StatusOr<FrequencySetting> Set(int64_t khz, const std::vector<int>& cpus);
  absl::Status AttachWorkload(int pid);
  void Restore();

  // The frequency the run CPUs are held at (0 = not set), and whether it
  // is emulated; for the power model.
  int64_t set_khz() const { return set_khz_; }
  bool emulated() const { return quota_active_; }

 private:
  std::string CpufreqFile(int cpu, const std::string& file) const;
  absl::StatusOr<FrequencySetting> SetCpufreq(int64_t khz,
                                              const std::vector<int>& cpus);
  absl::StatusOr<FrequencySetting> SetQuota(int64_t khz, int cpus);

  const HostCpuFrequencyOptions options_;
  bool has_cpufreq_ = false;
  int64_t max_khz_ = 0;
  int64_t min_khz_ = 0;
  int64_t set_khz_ = 0;
  bool quota_active_ = false;
  std::optional<CpuQuotaCgroup> cgroup_;
  // cpu -> original (scaling_min_freq, scaling_max_freq), for Restore.
  std::map<int, std::pair<std::string, std::string>> saved_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_CPU_FREQ_H_
