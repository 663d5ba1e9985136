// NvpmodelReboot: the agent's --allow_reboot on a Jetson. Start(target)
// writes a marker (`reboot.json` in the agent's state dir: the preset, its
// nvpmodel id, the boot id and the time) and runs `nvpmodel -m ID` with
// "YES" on its standard input, which answers the "Reboot required ... enter
// YES/yes to confirm" prompt of modes whose GPU power gating differs: the
// board reboots into the mode. Start waits up to 10 s for nvpmodel: an
// exit code other than 0 is an error naming it (no reboot, the marker is
// removed). systemd starts the agent again after the
// boot (infra/systemd); the run the agent declined meanwhile waits in the
// controller's queue and is assigned again.
//
// At construction a marker left by the previous boot is read and removed:
// the agent rebooted (or tried to) for that preset once, so Blocked() names
// it from then on: if the board still needs a reboot for it (nvpmodel
// failed, or the mask did not change), the run fails with that reason
// instead of the board rebooting in a loop.
//
// Thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_NVPMODEL_REBOOT_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_NVPMODEL_REBOOT_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"

namespace powersweep {
namespace jetson {

struct NvpmodelRebootOptions {
  std::string state_dir;                         // the agent's --work_dir
  std::string nvpmodel = "/usr/sbin/nvpmodel";   // --nvpmodel
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
};

class NvpmodelReboot : public BoardReboot {
 public:
  explicit NvpmodelReboot(NvpmodelRebootOptions options);

  std::string Blocked(const RebootTarget& target) override;
  absl::Status Start(const RebootTarget& target) override;

  // What the previous boot's marker said ("" when there was none), e.g.
  // "rebooted for 90W (nvpmodel -m 2) at 2026-11-28 05:10:00 UTC".
  std::string previous() const;

 private:
  // Removes the marker, remembers the target as tried, returns the error.
  absl::Status Failed(const RebootTarget& target, const std::string& why);

  const NvpmodelRebootOptions options_;
  mutable absl::Mutex mu_;
  std::string tried_preset_ ABSL_GUARDED_BY(mu_);  // from the marker
  std::string previous_ ABSL_GUARDED_BY(mu_);
};

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_NVPMODEL_REBOOT_H_
