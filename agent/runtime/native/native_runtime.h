// NativeRuntime: the workload as a child process (fork + execv, never a
// shell). In the child before exec: its own process group, default signal
// mask and dispositions, sched_setaffinity to the run's CPUs, stdin from
// /dev/null, stdout and stderr appended to the run's log file, the records
// pipe's write end on fd kRecordsFd (3), every other descriptor closed.
// The parent reads the pipe line by line on a reader thread.
//
// The child is started, stopped and reaped by a ChildSupervisor
// (agent/runtime/child_process.h): signals go to the child's whole process
// group; Wait() sleeps until the child exits or its next deadline, at most
// 250 ms, and enforces the timeout and grace period on the Clock (a
// FakeClock makes timeouts elapse as fast as the loop spins). A Cancel()
// racing Start() is honoured as soon as the process exists.
//
// Thread safety: Start/Wait from one thread; Cancel and Pid from any thread.
// One process per instance. The destructor kills and reaps a process still
// running.
#ifndef POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_

#include <atomic>
#include <string>
#include <thread>

#include "agent/runtime/child_process.h"
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
  int Pid() const override { return child_.pid(); }

 private:
  Clock* const clock_;
  RuntimeSpec spec_;
  RecordCallback callback_;
  std::thread reader_;
  std::atomic<int> bad_lines_{0};
  // Declared last: destroyed (the child killed and reaped) first.
  ChildSupervisor child_;
};

// Last non-empty line of a text file (up to 300 characters), "" if none.
std::string LastLineOfFile(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_NATIVE_NATIVE_RUNTIME_H_
