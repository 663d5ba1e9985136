// HostPlatform: any Linux machine. Cores are controlled by CPU affinity of
// the workload (MEASURED: the affinity is real); frequencies and presets
// cannot be set in this version; no power reading (power_mw 0,
// provenance UNSPECIFIED). Per-core frequency is read from cpufreq's
// scaling_cur_freq where it exists (files kept open, read with pread).
//
// Thread safety: all methods may be called from any thread; internal state
// is guarded by a mutex.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/catalog.h"
#include "agent/platform/platform.h"
#include "agent/telemetry/proc_file.h"

namespace powersweep {

struct HostPlatformOptions {
  std::string device_id;         // empty = hostname
  std::string cpus;              // e.g. "0-1"; empty = every allowed CPU
  std::vector<int> allowed_cpus; // empty = the agent's sched_getaffinity
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string machine_id_path = "/etc/machine-id";
  std::string agent_version;
  Catalog catalog;
};

class HostPlatform : public Platform {
 public:
  // InvalidArgument when --cpus is malformed or names no allowed CPU.
  static absl::StatusOr<std::unique_ptr<HostPlatform>> Create(
      HostPlatformOptions options);

  v1::DeviceIdentity Identity() const override;
  v1::DeviceCapabilities Capabilities() const override;
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override;
  std::vector<int> RunCpus() const override;
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override;

  // Every CPU the agent may use (allowed set restricted by --cpus).
  const std::vector<int>& AgentCpus() const { return agent_cpus_; }

 private:
  HostPlatform(HostPlatformOptions options, std::vector<int> agent_cpus);

  const HostPlatformOptions options_;
  const std::vector<int> agent_cpus_;
  v1::DeviceIdentity identity_;
  int64_t memory_bytes_ = 0;

  mutable absl::Mutex mu_;
  std::vector<int> run_cpus_ ABSL_GUARDED_BY(mu_);
  std::map<int, ProcFile> freq_files_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_
