// Platform: the device seen by the agent. Describes the device, applies a
// power mode, names the CPUs a run may use, fills the platform-specific parts
// of telemetry samples, and restores the device afterwards.
//
// Contract:
// - Identity() and Capabilities() are cheap and may be called at any time.
//   Capabilities() reports the hardware only (cores, frequency tables,
//   memory); the agent adds its catalog's runtimes, models and data sets
//   (agent/run/capabilities.h).
// - Apply(mode) sets the mode and reports what the device actually runs
//   (read back, never assumed). Errors: InvalidArgument naming the field of
//   the PowerMode that cannot be honoured; nothing is changed on error.
// - RunCpus() is the CPU set a run may use after the last successful Apply
//   (all CPUs of the agent before any Apply or after Restore).
// - Sample(cpus, sample) fills what only the platform knows: per-core
//   frequency (sample->cores must already hold one entry per CPU in `cpus`),
//   GPU, rails and power with their provenance. It does not touch
//   utilization, memory or process fields.
// - Restore() undoes Apply.
// - AttachWorkload(pid) (optional) places the started workload.
// - StartRunEnergyCounter()/StopRunEnergyCounter() (optional) bracket a
//   run with a counter that is not read per sample.
// - DescribeKnobs()/DescribeSensors()/DescribeProbe() (optional) say what
//   the device has, for `powersweep-agent probe`; they read current values
//   but change nothing.
// Thread safety: Sample() may run on the sampler thread while the session
// thread calls Identity(); Apply/Restore are called by the run executor only
// while no run is sampling. Implementations must make that safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// One knob as `powersweep-agent probe` prints it.
struct KnobReport {
  std::string knob;       // "cpu_cores", "cpu_freq_khz cpu0-3", ...
  std::string current;    // current value; "" when it cannot be read
  bool settable = false;
  std::string range;      // "1..12", "29 steps 115200..2201600"
  std::string note;       // how it is set, or why not (naming the file)
  v1::Provenance provenance = v1::PROVENANCE_UNSPECIFIED;
};

// One rail or sensor as `powersweep-agent probe` prints it; its reading is
// in the telemetry sample the probe prints.
struct SensorReport {
  std::string name;       // "VDD_GPU_SOC", "CPU-therm", "package-0"
  std::string kind;       // "rail", "total rail", "thermal", "load", ...
  std::string source;     // file read, or "model: ..." for modeled values
  v1::Provenance provenance = v1::PROVENANCE_UNSPECIFIED;
};

// What `powersweep-agent probe` says about the device beyond its knobs and
// sensors.
struct ProbeDetails {
  std::string root;  // the root the device's files are read under; "" = /
  // Extra identity lines, e.g. {"model", "Jetson AGX Orin"}.
  std::vector<std::pair<std::string, std::string>> details;
  std::string presets_source;  // where the named modes come from
  // The named modes; nullopt: the shared catalog's (common/power) for the
  // device class.
  std::optional<std::vector<std::string>> preset_names;
  std::vector<std::string> warnings;
};

// A power mode the board can enter only through a reboot (a Jetson preset
// whose GPU power gating differs from the board's): which nvpmodel mode to
// reboot into, and why.
struct RebootTarget {
  std::string preset;
  int nvpmodel_id = -1;
  std::string reason;
};

// Reboots the board into a mode (agent --allow_reboot; the Jetson one runs
// `nvpmodel -m ID` and answers its reboot prompt). Thread-safe.
class BoardReboot {
 public:
  virtual ~BoardReboot() = default;
  // Non-empty: why the agent must not reboot for `target` again (a reboot
  // into it was already tried and the board still needs one).
  virtual std::string Blocked(const RebootTarget& target) = 0;
  // Starts the reboot; returns once it is under way (the board goes down
  // soon after) or with the reason it could not start.
  virtual absl::Status Start(const RebootTarget& target) = 0;
};

class Platform {
 public:
  virtual ~Platform() = default;

  virtual v1::DeviceIdentity Identity() const = 0;
  virtual v1::DeviceCapabilities Capabilities() const = 0;
  virtual absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) = 0;
  virtual std::vector<int> RunCpus() const = 0;
  virtual void Sample(const std::vector<int>& cpus,
                      v1::TelemetrySample* sample) = 0;
  virtual void Restore() = 0;
  // Called by the run executor right after the workload process started,
  // so a platform can put it under a control it owns (host: the cgroup of
  // an emulated CPU frequency). An error fails the run. Default: nothing.
  virtual absl::Status AttachWorkload(int pid) { return absl::OkStatus(); }
  virtual std::vector<KnobReport> DescribeKnobs() { return {}; }
  virtual std::vector<SensorReport> DescribeSensors() { return {}; }
  virtual ProbeDetails DescribeProbe() { return {}; }
  // The reboot `mode` needs on this board; nullopt when it needs none
  // (the default: only a Jetson's power-gating presets do).
  virtual std::optional<RebootTarget> RebootFor(const v1::PowerMode& mode) {
    return std::nullopt;
  }
  // A device energy counter read when a run's sampling starts and after its
  // last tenant exited (a host GPU's NVML counter, too slow to read per
  // sample): Stop returns the joules between the two, 0 when the platform
  // has no such counter (the default) or it could not be read.
  virtual void StartRunEnergyCounter() {}
  virtual double StopRunEnergyCounter() { return 0; }
  // A CUDA run's GPU as the platform knows it (a host's NVML: name,
  // compute capability, driver), added to the workload's provenance.
  // Default: nothing.
  virtual void FillGpuProvenance(v1::GpuProvenance* gpu) {}
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_
