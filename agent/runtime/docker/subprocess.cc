#include "agent/runtime/docker/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/runtime/child_process.h"
#include "agent/util/seconds_to_nanos.h"
#include "common/clock.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

constexpr size_t kMaxCapture = 1 << 20;

int64_t MonoMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

std::string LastLine(const std::string& text) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = line;
  }
  return std::string(last.substr(0, 300));
}

}  // namespace

std::string CommandResult::Summary() const {
  std::string line = LastLine(err);
  if (line.empty()) line = LastLine(out);
  if (timed_out) return line.empty() ? "timed out" : line + " (timed out)";
  if (!line.empty()) return line;
  if (term_signal != 0) return absl::StrCat("killed by signal ", term_signal);
  return absl::StrCat("exit code ", exit_code);
}

absl::StatusOr<int> SpawnProcess(const std::vector<std::string>& argv,
                                 const SpawnFds& fds) {
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.stdin_fd = fds.stdin_fd;
  spawn.stdout_fd = fds.stdout_fd;
  spawn.stderr_fd = fds.stderr_fd;
  PS_ASSIGN_OR_RETURN(pid_t pid, SpawnChild(spawn));
  return static_cast<int>(pid);
}

absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         double timeout_s) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(e)));
  }
  SpawnOptions spawn;
  spawn.argv = argv;
  spawn.stdout_fd = out_pipe[1];
  spawn.stderr_fd = err_pipe[1];
  RealClock clock;
  ChildSupervisor child(&clock);
  // The deadline is kept below while the output is read; Wait() then only
  // reaps (the pipes close when the process ends).
  SupervisorOptions supervise;
  supervise.timeout_s = timeout_s;
  supervise.grace_s = 0;
  absl::Status started = child.Start(spawn, std::move(supervise));
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (!started.ok()) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return started;
  }
  CommandResult result;
  const int64_t deadline_ms = MonoMs() + SecondsToNanos(timeout_s) / 1000000;
  pollfd pfd[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  bool killed = false;
  char buf[16384];
  while (open_count > 0) {
    int wait_ms = -1;
    if (!killed) {
      const int64_t left = deadline_ms - MonoMs();
      if (left <= 0) {
        child.KillAndReap();
        killed = true;
        result.timed_out = true;
        continue;
      }
      wait_ms = static_cast<int>(left);
    }
    int n = poll(pfd, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (pfd[i].fd < 0 || pfd[i].revents == 0) continue;
      ssize_t r = read(pfd[i].fd, buf, sizeof(buf));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        close(pfd[i].fd);
        pfd[i].fd = -1;
        --open_count;
        continue;
      }
      if (sinks[i]->size() < kMaxCapture) {
        sinks[i]->append(buf, static_cast<size_t>(r));
      }
    }
  }
  for (pollfd& p : pfd) {
    if (p.fd >= 0) close(p.fd);
  }
  const ChildExit exit = child.Wait();
  if (exit.exited()) result.exit_code = exit.exit_code();
  result.term_signal = exit.term_signal();
  return result;
}

}  // namespace powersweep
