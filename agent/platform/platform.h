// Platform: the device seen by the agent. Describes the device, applies a
// power mode, names the CPUs a run may use, fills the platform-specific parts
// of telemetry samples, and restores the device afterwards.
//
// Contract:
// - Describe() is cheap and may be called at any time.
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
// Thread safety: Sample() may run on the sampler thread while the session
// thread calls Describe(); Apply/Restore are called by the run executor only
// while no run is sampling. Implementations must make that safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "powersweep/v1/powersweep.pb.h"

namespace powersweep {

namespace v1 = ::powersweep::v1;

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
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_PLATFORM_H_
