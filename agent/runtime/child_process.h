// The agent's one child-process supervisor: how the workload (NativeRuntime),
// the container engine's client (DockerRuntime) and short engine commands
// (RunCommand) are started, stopped and reaped.
//
// SpawnChild(options): fork + execv of options.argv (argv[0] a path, never a
// shell). In the child before exec: its own process group, PR_SET_PDEATHSIG
// SIGKILL (a child never outlives the thread that spawned it), default
// signal mask and dispositions, stdin/stdout/stderr on the given
// descriptors (-1: /dev/null), options.records_fd (if any) on fd
// kRecordsFd (3), every other descriptor closed, sched_setaffinity to
// options.cpus (if any; failure: exit 126). A failing exec exits 127 after
// writing "<exec_error_prefix><path>: <reason>" to the child's stderr. The
// caller reaps the pid (or hands the spawn to a ChildSupervisor).
//
// ChildSupervisor: one child's life.
// - Start(spawn, options) creates the child (SpawnChild, or any function
//   returning the pid of a new child in its own process group, e.g.
//   ContainerEngine::StartAttached) and watches it (ChildExitWatcher). A
//   Cancel() before Start makes Start fail with Cancelled; one that races
//   Start is honoured as soon as the process exists.
// - Wait() sleeps until the child exits or its next deadline (at most
//   250 ms on the Clock), enforces options.timeout_s from the start and the
//   grace escalation on cancel or timeout: options.stop(SIGTERM), then
//   options.stop(SIGKILL) after options.grace_s, then (for a stop that
//   does not signal the child itself) SIGKILL to the child's process group
//   after options.kill_child_after_s more. options.tick runs every
//   options.tick_s while the child runs. Once the child is reaped, what is
//   left of its process group is killed.
// - Cancel(reason): any thread, any time. With options.stop_from_cancel
//   (the default stop, a signal) SIGTERM is sent at once; otherwise Wait()
//   is woken and sends it (a stop that may block, such as an engine call).
//
// Thread safety: Start, Wait, TryReap, KillAndReap from one thread; Cancel,
// pid, cancelled from any thread. The destructor kills (SIGKILL to the
// group) and reaps a child still running.
#ifndef POWERSWEEP_AGENT_RUNTIME_CHILD_PROCESS_H_
#define POWERSWEEP_AGENT_RUNTIME_CHILD_PROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "agent/runtime/child_exit_watcher.h"
#include "common/clock.h"

namespace powersweep {

struct SpawnOptions {
  std::vector<std::string> argv;
  int stdin_fd = -1;  // -1: /dev/null
  int stdout_fd = -1;
  int stderr_fd = -1;
  int records_fd = -1;    // placed on fd kRecordsFd (3) when >= 0
  std::vector<int> cpus;  // CPU affinity; empty: inherited
  std::string exec_error_prefix = "cannot exec ";
};

absl::StatusOr<pid_t> SpawnChild(const SpawnOptions& options);

struct SupervisorOptions {
  double timeout_s = 0;  // from Start; <= 0: none
  double grace_s = 5;    // from the SIGTERM stop to the SIGKILL stop
  // Asks the child to stop with SIGTERM or SIGKILL; empty: signals its
  // process group. Called without the supervisor's lock held.
  std::function<void(int sig)> stop;
  // Cancel() sends the SIGTERM stop itself (else it only wakes Wait()).
  bool stop_from_cancel = true;
  // After the SIGKILL stop, a child still there this long later has its
  // process group killed directly; < 0: never.
  double kill_child_after_s = -1;
  // Called from Wait() at once and then every tick_s while the child runs.
  double tick_s = 0;
  std::function<void()> tick;
};

struct ChildExit {
  int wait_status = -1;  // as from wait4; -1: reaped elsewhere (or never run)
  rusage usage{};
  bool cancelled = false;
  std::string cancel_reason;
  bool timed_out = false;
  // Its process group was killed directly (kill_child_after_s or
  // KillAndReap), not through options.stop.
  bool killed_directly = false;
  bool exited() const;  // exit_code() is meaningful
  int exit_code() const;
  bool signaled() const;
  int term_signal() const;
  double cpu_s() const;
  int64_t max_rss_bytes() const;
};

class ChildSupervisor {
 public:
  explicit ChildSupervisor(Clock* clock);
  ~ChildSupervisor();
  ChildSupervisor(const ChildSupervisor&) = delete;
  ChildSupervisor& operator=(const ChildSupervisor&) = delete;

  // Cancelled("cancelled before start: <reason>") once Cancel() was called.
  absl::Status CheckNotCancelled() const;
  absl::Status Start(const SpawnOptions& spawn, SupervisorOptions options);
  absl::Status Start(const std::function<absl::StatusOr<pid_t>()>& spawn,
                     SupervisorOptions options);
  ChildExit Wait();
  void Cancel(const std::string& reason);

  // Reaps the child if it has exited; true once reaped.
  bool TryReap();
  // SIGKILL to the child's process group, then reaps it (blocking).
  void KillAndReap();

  pid_t pid() const { return pid_; }
  bool cancelled() const;
  int64_t start_ns() const { return start_ns_; }

 private:
  bool ReapLocked(bool block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SignalLocked(int sig) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Stop(int sig);
  void Wake();
  ChildExit ResultLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Clock* const clock_;
  SupervisorOptions options_;
  int64_t timeout_ns_ = 0;
  int64_t grace_ns_ = 0;
  int64_t kill_child_after_ns_ = -1;
  int64_t tick_ns_ = 0;
  int64_t start_ns_ = 0;
  std::atomic<pid_t> pid_{0};
  std::unique_ptr<ChildExitWatcher> watcher_;  // set with pid_

  mutable absl::Mutex mu_;
  // Notified when the child exits or Cancel() is called; Wait() replaces
  // it once it has seen it notified.
  std::shared_ptr<absl::Notification> wake_ ABSL_GUARDED_BY(mu_);
  bool reaped_ ABSL_GUARDED_BY(mu_) = false;
  int wait_status_ ABSL_GUARDED_BY(mu_) = -1;
  rusage usage_ ABSL_GUARDED_BY(mu_){};
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::string cancel_reason_ ABSL_GUARDED_BY(mu_);
  bool timed_out_ ABSL_GUARDED_BY(mu_) = false;
  bool killed_directly_ ABSL_GUARDED_BY(mu_) = false;
  int64_t term_ns_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t kill_ns_ ABSL_GUARDED_BY(mu_) = -1;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_CHILD_PROCESS_H_
