// ChildExitWatcher: notifies when a child process has exited, without
// reaping it, so a runtime's Wait() can sleep until the child exits or its
// next deadline (timeout, grace) instead of polling every few milliseconds.
//
// Construct it right after fork(), before anything can reap the child: it
// opens a pidfd for the child there (Linux 5.3+; on older kernels, such as
// L4T 32's 4.9, it falls back to waitid(WNOWAIT) on the child's pid). A
// thread waits for the exit and notifies exited(). The owner still reaps
// the child (wait4) itself; the destructor joins the thread, so the child
// must have exited by then.
//
// on_exit, if given, runs on the watcher's thread right after exited() is
// notified.
//
// Thread safety: exited() may be waited on from any thread.
#ifndef POWERSWEEP_AGENT_RUNTIME_CHILD_EXIT_WATCHER_H_
#define POWERSWEEP_AGENT_RUNTIME_CHILD_EXIT_WATCHER_H_

#include <sys/types.h>

#include <functional>
#include <thread>

#include "absl/synchronization/notification.h"

namespace powersweep {

class ChildExitWatcher {
 public:
  enum class Method { kAuto, kWaitid };  // kWaitid: the old-kernel path
  explicit ChildExitWatcher(pid_t pid, Method method = Method::kAuto,
                            std::function<void()> on_exit = nullptr);
  ~ChildExitWatcher();
  ChildExitWatcher(const ChildExitWatcher&) = delete;
  ChildExitWatcher& operator=(const ChildExitWatcher&) = delete;

  absl::Notification* exited() { return &exited_; }

 private:
  void Watch(pid_t pid, int pidfd);

  absl::Notification exited_;
  std::function<void()> on_exit_;
  std::thread thread_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_CHILD_EXIT_WATCHER_H_
