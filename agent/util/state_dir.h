// The agent's state directory on the device: per-run workload logs and the
// Jetson restore file (written back as root at the next start). It must
// not be a place another user can prepare, so:
//  - the default is /var/lib/powersweep-agent/<device_id> for root, else
//    $XDG_STATE_HOME/powersweep-agent/<device_id> (or
//    ~/.local/state/powersweep-agent/<device_id>), never a predictable
//    name under /tmp;
//  - PrepareStateDir creates missing directories 0700 and refuses an
//    existing one that is a symlink, not a directory, not owned by the
//    effective user, or group/world-writable;
//  - files in it are opened with O_NOFOLLOW | O_CLOEXEC, created 0600.
//
// Stateless functions; thread-safe.
#ifndef POWERSWEEP_AGENT_UTIL_STATE_DIR_H_
#define POWERSWEEP_AGENT_UTIL_STATE_DIR_H_

#include <sys/types.h>

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

// The default state dir of `device_id` for a process of effective user
// `euid` with the given $XDG_STATE_HOME and $HOME (null or "" when unset).
// Characters of the id outside [A-Za-z0-9._-] become '_' (so the id cannot
// leave the directory); an id of "", "." or ".." becomes "_".
std::string DefaultStateDir(const std::string& device_id, uid_t euid,
                            const char* xdg_state_home, const char* home);

// Creates `path` (and missing parents) with mode 0700, or checks the
// existing directory. FailedPrecondition naming `flag` and the reason
// ("--work_dir: /x is a symlink; ...").
absl::Status PrepareStateDir(const std::string& path, const std::string& flag);

// open(2) of a file in a state dir: `flags` | O_NOFOLLOW | O_CLOEXEC, mode
// 0600 when created. Returns the fd, or FailedPrecondition naming the file
// (a symlink gives "is a symlink").
absl::StatusOr<int> OpenStateFile(const std::string& path, int flags);

// The whole file; nullopt when it does not exist. Refuses a symlink.
absl::StatusOr<std::optional<std::string>> ReadStateFile(
    const std::string& path);

// Writes `text` to `path` atomically (a new 0600 temporary file in the
// same directory, fsync, rename). Never follows a symlink.
absl::Status WriteStateFile(const std::string& path, const std::string& text);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_UTIL_STATE_DIR_H_
