// NativeRuntime: the workload as a child process (fork + execv, never a
// shell). In the child before exec: its own process group, default signal
// mask and dispositions, sched_setaffinity to the run's CPUs, stdin from
// /dev/null, stdout and stderr appended to the run's log file, the records
// pipe's write end on fd kRecordsFd (3), every other descriptor closed.
// The parent reads the pipe line by line on a reader thread.
//
// Signals go to the child's whole process group. Wait() sleeps until the
// child exits (ChildExitWatcher) or its next deadline, at most 250 ms, and
// enforces the timeout and grace period on the Clock (a FakeClock makes
// timeouts elapse as fast as the loop spins). A Cancel() racing Start() is
// honoured as soon as the process exists.
//
// Thread safety: Start/Wait from one thread; Cancel and Pid from any thread.
// One process per instance. The destructor kills and reaps a process still
// running.
#ifndef POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/child_exit_watcher.h"
#include "agent/runtime/runtime.h"
#include "common/clock.h"

namespace powersweep {

class NativeRuntime : public Runtime {
 public:
  explicit NativeRuntime(Clock* clock);
  ~NativeRuntime() override;

  absl::Status Start(const RuntimeSpec& spec,
                     RecordCallback callback) override;
  ExitStatus Wait() override;
  void Cancel(const std::string& reason) override;
  int Pid() const override { return pid_; }

 private:
  void ReadLoop(int fd);
  // Sends `sig` to the process group; requires the child not yet reaped.
  void SignalLocked(int sig) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Clock* const clock_;
  RuntimeSpec spec_;
  RecordCallback callback_;
  std::thread reader_;
  std::unique_ptr<ChildExitWatcher> exit_watcher_;  // set with pid_
  std::atomic<int> pid_{0};
  std::atomic<int> bad_lines_{0};
  int64_t start_ns_ = 0;

  absl::Mutex mu_;
  bool reaped_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool timed_out_ ABSL_GUARDED_BY(mu_) = false;
  bool killed_ ABSL_GUARDED_BY(mu_) = false;
  std::string cancel_reason_ ABSL_GUARDED_BY(mu_);
  int64_t term_sent_ns_ ABSL_GUARDED_BY(mu_) = -1;
};

// Last non-empty line of a text file (up to 300 characters), "" if none.
std::string LastLineOfFile(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_
