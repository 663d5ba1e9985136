// CPU frequency emulated by CPU bandwidth quota, for hosts without cpufreq.
//
// A workload limited to N CPUs at a requested frequency f on a machine
// whose cores run at f_max gets the CPU time it would have at f if the work
// per cycle were fixed: a CFS bandwidth quota of
//   quota_us = round(period_us * N * f / f_max)   (at least 1000 us, the
//                                                  kernel's minimum)
// per period_us (100000 us) for the cgroup holding the workload. Each core
// then runs at most f / f_max of the wall time. This emulates the
// throughput of a slower clock, not its power: power is modeled separately
// (power_model.h) and every value obtained this way is labelled EMULATED.
//
// CpuQuotaCgroup owns one cgroup under a cgroup root and writes:
// - cgroup v2 (the root has cgroup.controllers listing "cpu"; also tried at
//   ROOT/unified for hybrid hierarchies): enables "+cpu" in the root's
//   cgroup.subtree_control, creates ROOT/NAME and writes "QUOTA PERIOD" (or
//   "max PERIOD") to NAME/cpu.max;
// - cgroup v1 (ROOT/cpu/cpu.cfs_quota_us exists): creates ROOT/cpu/NAME,
//   writes PERIOD to cpu.cfs_period_us and QUOTA (or -1) to
//   cpu.cfs_quota_us.
// Attach(pid) writes the pid to NAME/cgroup.procs. Every error is
// FailedPrecondition naming the file and the reason (e.g. not root, no cpu
// controller). The cgroup directory is removed by Remove() (best effort).
//
// Not thread-safe: HostPlatform serializes calls under its mutex.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_CPU_QUOTA_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_CPU_QUOTA_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

inline constexpr int64_t kQuotaPeriodUs = 100000;
inline constexpr int64_t kMinQuotaUs = 1000;

struct CpuQuota {
  int64_t quota_us = 0;
  int64_t period_us = kQuotaPeriodUs;
  bool operator==(const CpuQuota& o) const {
    return quota_us == o.quota_us && period_us == o.period_us;
  }
};

// The quota for `cpus` CPUs at `freq_khz` out of `max_khz`. InvalidArgument
// (naming cpu_freq_khz) unless 0 < freq_khz and max_khz > 0 and cpus > 0;
// frequencies above max_khz are capped at max_khz (quota = N periods).
absl::StatusOr<CpuQuota> QuotaForFrequency(int64_t freq_khz, int64_t max_khz,
                                           int cpus,
                                           int64_t period_us = kQuotaPeriodUs);

// The frequency a quota emulates (inverse of QuotaForFrequency).
int64_t EmulatedFrequencyKhz(const CpuQuota& quota, int64_t max_khz, int cpus);

class CpuQuotaCgroup {
 public:
  enum class Version { kV1, kV2 };

  // Finds the hierarchy under `cgroup_root` and creates the cgroup `name`.
  static absl::StatusOr<CpuQuotaCgroup> Open(const std::string& cgroup_root,
                                             const std::string& name);

  absl::Status Set(const CpuQuota& quota);
  absl::Status Clear();  // no limit
  absl::Status Attach(int pid);
  void Remove();

  Version version() const { return version_; }
  const std::string& dir() const { return dir_; }
  // The file that holds the quota (cpu.max or cpu.cfs_quota_us).
  std::string QuotaFile() const;

 private:
  CpuQuotaCgroup(Version v, std::string dir) : version_(v), dir_(std::move(dir)) {}

  Version version_;
  std::string dir_;
};

// Writes `text` to `path` (truncating; the file must exist or be creatable).
// FailedPrecondition naming the path and errno text on failure.
absl::Status WriteSysFile(const std::string& path, const std::string& text);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_CPU_QUOTA_H_
