// BoardState: the knobs of a Jetson as they were before the agent changed
// them (online cores, every active cluster's scaling min/max, GPU devfreq
// min/max and power control, EMC rate/lock/state or, on Thor, the bwmgr
// devfreq min/max), which of them the agent
// touched since, and how to put them back. Serialized to JSON for the
// restore file that survives an agent crash (restore_file.h).
//
// Value type; the functions are stateless (thread safety is the caller's).
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_STATE_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_STATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/platform/jetson/discovery.h"
#include "agent/platform/jetson/sysfs_io.h"

namespace powersweep {
namespace jetson {

struct ClusterState {
  std::string cpufreq_dir;  // ".../cpuN/cpufreq" of an online CPU
  int64_t min_khz = 0;
  int64_t max_khz = 0;
};

struct BoardState {
  std::vector<int> online_cpus;   // CPUs with an online file, except cpu0
  std::vector<int> offline_cpus;
  std::vector<ClusterState> clusters;  // clusters with an online CPU
  bool has_gpu = false;
  std::string gpu_devfreq_dir;
  std::string gpu_power_control;
  std::string gpu_control;  // "auto" on a booted board
  int64_t gpu_min_hz = 0;
  int64_t gpu_max_hz = 0;
  bool has_emc = false;
  int64_t emc_rate_hz = 0;
  int64_t emc_locked = 0;
  int64_t emc_state = 0;
  // Non-empty: the EMC is this devfreq node (Thor's bwmgr), restored
  // through its min/max like the GPU; the three fields above are unused.
  std::string emc_devfreq_dir;
  int64_t emc_min_hz = 0;
  int64_t emc_max_hz = 0;
  // What an Apply changed since the state was recorded; Restore writes
  // back only these.
  bool cores_touched = false;
  bool cpu_touched = false;
  bool gpu_touched = false;
  bool emc_touched = false;

  bool touched() const {
    return cores_touched || cpu_touched || gpu_touched || emc_touched;
  }
};

// Reads the current knobs (the ones that can be read; unreadable EMC
// debugfs leaves has_emc false). Errors name the file that failed.
absl::StatusOr<BoardState> RecordState(SysfsIo& io, const BoardInfo& board);

// Writes the touched parts of `state` back: cores online, cluster min/max
// (ordered for the current values), cores offline, GPU (powered on around
// the devfreq writes), EMC (rate, state, lock). Keeps going after a failed
// write and returns the first error.
absl::Status RestoreState(SysfsIo& io, const BoardState& state);

// Sets a [min, max] pair in a valid order for the current values: max
// first when the new max is not below the current min (raising), else min
// first (lowering). Reads the current min from `min_path`.
absl::Status WriteMinMax(SysfsIo& io, const std::string& min_path,
                         const std::string& max_path, int64_t min_value,
                         int64_t max_value);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_STATE_H_
