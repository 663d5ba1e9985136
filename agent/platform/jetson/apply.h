// Applying a PowerMode to a Jetson through SysfsIo, in three steps:
//  PlanMode   validates the request (no file is written): a preset is
//             resolved through the PresetResolver, knobs must exist
//             (FailedPrecondition naming the file: no debugfs, no GPU node)
//             and values must be in the board's tables (InvalidArgument
//             naming the field, with the nearest valid values); then every
//             file to be written must be writable (FailedPrecondition naming
//             the file, e.g. EACCES when not root).
//  WriteMode  writes in a safe order: cores online (cpuN/online, cpu0 never
//             touched), each active cluster's scaling min/max (max first
//             when raising, min first when lowering), the GPU devfreq
//             min/max with power/control "on" around them, then EMC
//             mrq_rate_locked=1, state=1, rate. Frequencies are pinned
//             (min = max).
//  ReadBack   reads every value back (cpuN/online, scaling_cur_freq,
//             devfreq cur_freq, EMC rate), polling through the Clock until
//             they match the plan and read the same twice in a row, and at
//             least the documented latency of the slowest knob written has
//             passed (MinSettle), or the settle timeout passes. The wait is
//             `settle_s` of the result. What the kernel clamped is in
//             `actual` and in `notes`, never hidden.
// Stateless functions; the caller serializes access to the board.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_APPLY_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_APPLY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/platform/jetson/discovery.h"
#include "agent/platform/jetson/sysfs_io.h"
#include "common/clock.h"
#include "common/power/clock_latency.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {
namespace jetson {

// Maps an nvpmodel preset name to explicit knobs (0 = leave), or an error.
using PresetResolver =
    std::function<absl::StatusOr<v1::PowerMode>(const std::string& preset)>;

// A validated mode: 0 = leave the knob as the board has it.
struct ModePlan {
  int cpu_cores = 0;
  int64_t cpu_freq_khz = 0;
  int64_t gpu_freq_hz = 0;
  int64_t mem_freq_hz = 0;
  std::vector<std::string> notes;  // e.g. preset values snapped to tables
  bool empty() const {
    return cpu_cores == 0 && cpu_freq_khz == 0 && gpu_freq_hz == 0 &&
           mem_freq_hz == 0;
  }
};

absl::StatusOr<ModePlan> PlanMode(SysfsIo& io, const BoardInfo& board,
                                  const v1::PowerMode& mode,
                                  const PresetResolver& presets);

// `gpu_control_after`: the power/control value to restore after the GPU
// writes ("auto" on a booted board).
absl::Status WriteMode(SysfsIo& io, const BoardInfo& board,
                       const ModePlan& plan,
                       const std::string& gpu_control_after);

// The largest clock latency (common/power/clock_latency.h) of the knobs
// `plan` writes; zero when it writes none.
absl::Duration MinSettle(const ModePlan& plan);

struct SettleOptions {
  absl::Duration timeout = absl::Milliseconds(200);
  absl::Duration poll = absl::Milliseconds(10);
};

v1::AppliedPowerMode ReadBack(SysfsIo& io, const BoardInfo& board,
                              const v1::PowerMode& requested,
                              const ModePlan& plan, Clock* clock,
                              const SettleOptions& settle);

// CPUs whose cpuN/online reads 1 (cpu0 counts as online without a file).
std::vector<int> OnlineCpus(SysfsIo& io, const BoardInfo& board);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_APPLY_H_
