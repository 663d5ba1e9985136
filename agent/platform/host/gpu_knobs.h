// HostGpuKnobs: a host GPU's power mode through NVML (nvml_gpu.h), the
// knobs PowerMode.gpu_power_limit_w (any whole watt within NVML's limit
// constraints) and PowerMode.gpu_freq_hz (an SM clock the GPU lists as
// supported, locked with min = max). 0 leaves a knob as the GPU had it when
// the agent started (and undoes an earlier Apply's change of it).
//
// - At construction the knobs' original state is read, and whether they
//   can be set: the current limit is written back unchanged, and
//   NVML_ERROR_NO_PERMISSION there means "no permission" (the agent is not
//   root) for both knobs.
// - Apply() checks both values first (InvalidArgument naming the field and
//   why: outside the range, not a supported clock, not settable and why),
//   writes the restore file before the first change, sets the limit, then
//   the clock (undoing the limit when the clock fails), and reads both back.
// - Restore() sets the original limit back and resets locked clocks.
// - The restore file (text, one "key value" per line, first line
//   "powersweep-host-gpu-restore 1") records the GPU's UUID, its original
//   limit and whether clocks were locked. RestoreFromFile() is called by
//   the next agent when this one died with a mode applied; a file for
//   another GPU is left out with a note.
//
// Not thread-safe: HostPlatform calls it under its mutex.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_GPU_KNOBS_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_GPU_KNOBS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/platform/host/nvml_gpu.h"

namespace powersweep {

struct GpuKnobSetting {
  int32_t power_limit_w = 0;  // read back; 0 when not asked for
  int64_t sm_clock_hz = 0;    // read back; 0 when not asked for
  std::vector<std::string> notes;
};

class HostGpuKnobs {
 public:
  // `gpu` outlives this. `restore_path` empty: no restore file (probe).
  HostGpuKnobs(NvmlGpu* gpu, std::string restore_path);

  // Empty when the knobs can be set; otherwise why not.
  const std::string& not_settable() const { return not_settable_; }
  int32_t min_limit_w() const;  // whole watts within the constraints
  int32_t max_limit_w() const;
  bool limit_settable() const { return not_settable_.empty() && has_limit_; }
  bool clock_settable() const;

  absl::Status Check(int32_t limit_w, int64_t freq_hz) const;
  absl::StatusOr<GpuKnobSetting> Apply(int32_t limit_w, int64_t freq_hz);
  // Back to the state at construction; notes what failed (a lost GPU).
  std::vector<std::string> Restore();

  // Undoes what the file at `path` records and deletes it; OK when there
  // is no file. Notes say what was restored or left out.
  static absl::Status RestoreFromFile(NvmlGpu& gpu, const std::string& path,
                                      std::vector<std::string>* notes);

 private:
  absl::Status WriteRestoreFile();
  void RemoveRestoreFile();

  NvmlGpu* const gpu_;
  const std::string restore_path_;
  std::string not_settable_;
  bool has_limit_ = false;
  int64_t original_limit_mw_ = 0;
  bool limit_changed_ = false;
  bool clocks_locked_ = false;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_GPU_KNOBS_H_
