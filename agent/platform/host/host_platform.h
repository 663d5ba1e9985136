// HostPlatform: any Linux machine.
// - Cores: CPU affinity of the workload (MEASURED: the affinity is real).
// - CPU frequency: cpufreq scaling_max_freq where the machine has it
//   (MEASURED read-back), otherwise EMULATED by a CPU bandwidth quota on a
//   cgroup (cpu_freq.h, cpu_quota.h); the knob's provenance is in
//   AppliedPowerMode.cpu_freq_provenance. Presets, GPU and memory
//   frequencies cannot be set on the CPU.
// - NVIDIA GPU (NVML, loaded at run time from options.nvml_library; see
//   nvml_gpu.h): when it opens, every sample gets the GPU's instant power as
//   rail "gpu-nvml" (MEASURED), its SM clock (gpu_freq_hz), utilisation
//   (gpu_util), memory clock (mem_freq_hz), temperature ("GPU") and memory
//   used; the total power is the GPU's plus the CPU figure (RAPL or the
//   model; the total is MODELED when the CPU part is). The knobs
//   gpu_power_limit_w and gpu_freq_hz (locked SM clock) are set through
//   gpu_knobs.h, restored by Restore() and, after a crash, from
//   options.gpu_restore_path at the next start. The GPU's energy counter is
//   read at run start and end (StartRunEnergyCounter). A GPU that is lost
//   mid-run drops out of the samples (one warning); the run goes on.
//   Without NVML the reason is in Capabilities().gpu_note and the probe.
// - Power: RAPL energy counters where readable (rapl.h, MEASURED, one rail
//   per domain), otherwise the documented model of power_model.h driven by
//   the sample's per-core utilization and the set frequency (MODELED, one
//   rail "cpu-modeled"). The first sample after a RAPL reset has no power.
// - Per-core frequency is read from cpufreq's scaling_cur_freq where it
//   exists (files kept open, read with pread); under an emulated frequency
//   it is the emulated value.
//
// Thread safety: all methods may be called from any thread; internal state
// is guarded by a mutex.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_

#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/host/cpu_freq.h"
#include "agent/platform/host/gpu_knobs.h"
#include "agent/platform/host/nvml_gpu.h"
#include "agent/platform/host/power_model.h"
#include "agent/platform/host/rapl.h"
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
  std::string cgroup_root = "/sys/fs/cgroup";  // for the emulated frequency
  int64_t max_cpu_khz = 0;  // 0 = discover (cpufreq, then /proc/cpuinfo)
  bool use_rapl = true;     // false: always the power model
  PowerModelParams power_model;
  std::string agent_version;
  // NVML: the library to dlopen ("" = none, the default here so that no
  // test touches a real GPU; the agent's --nvml_library defaults to
  // libnvidia-ml.so.1) and the GPU's index.
  std::string nvml_library;
  int nvml_gpu = 0;
  // The GPU restore file ("" = none: a probe changes nothing).
  std::string gpu_restore_path;
};

class HostPlatform : public Platform {
 public:
  // InvalidArgument when --cpus is malformed or names no allowed CPU.
  static absl::StatusOr<std::unique_ptr<HostPlatform>> Create(
      HostPlatformOptions options);
  // Sets a GPU's knobs back (what Restore() does).
  ~HostPlatform() override;

  v1::DeviceIdentity Identity() const override;
  v1::DeviceCapabilities Capabilities() const override;
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override;
  std::vector<int> RunCpus() const override;
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override;
  absl::Status AttachWorkload(int pid) override;
  std::vector<KnobReport> DescribeKnobs() override;  // host_describe.cc
  std::vector<SensorReport> DescribeSensors() override;
  ProbeDetails DescribeProbe() override;
  void StartRunEnergyCounter() override;
  double StopRunEnergyCounter() override;
  void FillGpuProvenance(v1::GpuProvenance* gpu) override;

  // "rapl (N domains)" or "modeled"; for logs and probes.
  std::string PowerSource() const;

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
  std::set<int> no_freq_file_ ABSL_GUARDED_BY(mu_);
  HostCpuFrequency freq_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RaplReader> rapl_ ABSL_GUARDED_BY(mu_);
  double last_sample_t_s_ ABSL_GUARDED_BY(mu_) = -1;
  // The GPU (null without NVML; gpu_note_ says why) and its knobs.
  std::unique_ptr<NvmlGpu> gpu_;
  std::unique_ptr<HostGpuKnobs> gpu_knobs_ ABSL_GUARDED_BY(mu_);
  std::string gpu_note_;
  bool gpu_lost_logged_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<double> run_start_gpu_j_ ABSL_GUARDED_BY(mu_);

  void OpenGpu();
  void SamplePower(v1::TelemetrySample* sample)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SampleCpuPower(v1::TelemetrySample* sample)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds the GPU's readings and rail; its power in mW (0 when none).
  double SampleGpu(v1::TelemetrySample* sample)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_HOST_PLATFORM_H_
