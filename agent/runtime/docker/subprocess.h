// Small process helpers for driving a container engine's client: fork +
// execv (never a shell).
//
// SpawnProcess(argv, fds): starts argv[0] (a path) in its own process group
// with stdin/stdout/stderr on the given descriptors (-1 = /dev/null), every
// other descriptor closed, default signal mask and dispositions, and
// PR_SET_PDEATHSIG SIGKILL (it dies with the thread that spawned it). The
// caller reaps the returned pid. A failing exec shows up as exit code 127
// with "cannot exec <path>: <reason>" on the child's stderr.
//
// RunCommand(argv, timeout_s): runs to completion and captures stdout and
// stderr (each up to 1 MiB). After timeout_s of real time the process group
// is killed (SIGKILL) and the result says timed_out. Errors only when the
// process cannot be created (fork/pipe failures).
//
// Thread-safe (no shared state).
#ifndef POWERSWEEP_AGENT_RUNTIME_DOCKER_SUBPROCESS_H_
#define POWERSWEEP_AGENT_RUNTIME_DOCKER_SUBPROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace powersweep {

struct SpawnFds {
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

absl::StatusOr<int> SpawnProcess(const std::vector<std::string>& argv,
                                 const SpawnFds& fds);

struct CommandResult {
  int exit_code = -1;  // valid when term_signal == 0 and !timed_out
  int term_signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
  bool ok() const { return exit_code == 0 && term_signal == 0 && !timed_out; }
  // One line for error messages: the last non-empty line of stderr (else
  // stdout), or "exit code N" / "killed by signal N" / "timed out".
  std::string Summary() const;
};

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         double timeout_s);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_DOCKER_SUBPROCESS_H_
