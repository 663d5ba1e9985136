// The Jetson restore file: a BoardState (board_state.h) as JSON in the
// agent's state dir (agent/util/state_dir.h), written before the first change
// of the board and read back, as root, by the next agent when this one
// died with a custom mode applied.
//
// Nothing in the file is trusted: StateFromJson keeps only values of the
// expected kind (integers that a double holds exactly, the "auto"/"on"
// token of the GPU's power control, 0/1 EMC flags), and KeepDiscoveredKnobs
// keeps only paths that discovery found on this board under --sysfs_root.
// Everything else is left out with a warning naming the path (or the
// entry). The file itself is read and written without following symlinks.
//
// Stateless functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_RESTORE_FILE_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_RESTORE_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "agent/platform/jetson/board_state.h"
#include "agent/platform/jetson/discovery.h"
#include "agent/platform/jetson/sysfs_io.h"

namespace powersweep {
namespace jetson {

std::string StateToJson(const BoardState& state);

// InvalidArgument when `json` is not a version 1 restore file. Entries of
// the wrong kind are left out and described in `warnings` (may be null).
absl::StatusOr<BoardState> StateFromJson(const std::string& json,
                                         std::vector<std::string>* warnings =
                                             nullptr);

// `state` without the knobs that are not the board's: CPUs that are not
// present (or cpu0, which has no online file), cpufreq dirs of no cluster,
// a GPU devfreq dir or power control other than the one discovered, EMC
// when the board has none. Each left-out knob is a warning naming its path.
BoardState KeepDiscoveredKnobs(const BoardState& state, const BoardInfo& board,
                               std::vector<std::string>* warnings);

// Writes `state` to `path` (0600, atomically, never through a symlink).
absl::Status WriteRestoreFile(const std::string& path, const BoardState& state);

// Restores the board from the file at `path` when it exists (after both
// checks above; the warnings are logged) and deletes it. OK when there is
// no file; FailedPrecondition naming the file when it is a symlink, is not
// a restore file, or the writes fail.
absl::Status RestoreFromStateFile(SysfsIo& io, const BoardInfo& board,
                                  const std::string& path);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_RESTORE_FILE_H_
