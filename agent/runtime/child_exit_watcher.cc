#include "agent/runtime/child_exit_watcher.h"

#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

namespace powersweep {

namespace {

int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

ChildExitWatcher::ChildExitWatcher(pid_t pid, Method method,
                                   std::function<void()> on_exit)
    : on_exit_(std::move(on_exit)) {
  // Opened here, synchronously: a pidfd names this child even if its pid
  // is reaped and reused before the thread runs.
  const int pidfd = method == Method::kAuto ? OpenPidfd(pid) : -1;
  thread_ = std::thread([this, pid, pidfd] { Watch(pid, pidfd); });
}

ChildExitWatcher::~ChildExitWatcher() {
  if (thread_.joinable()) thread_.join();
}

void ChildExitWatcher::Watch(pid_t pid, int pidfd) {
  if (pidfd >= 0) {
    // Readable once the child has exited (also after it was reaped).
    pollfd p{pidfd, POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
    close(pidfd);
  } else {
    // No pidfds (kernel < 5.3): wait without reaping. Returns ECHILD at
    // once if the owner already reaped the child.
    siginfo_t info{};
    while (waitid(P_PID, static_cast<id_t>(pid), &info,
                  WEXITED | WNOWAIT) < 0 &&
           errno == EINTR) {
    }
  }
  exited_.Notify();
  if (on_exit_) on_exit_();
}

}  // namespace powersweep
