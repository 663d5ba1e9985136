// Runtime: runs one workload process and reports how it ended.
//
// Contract:
// - Start(spec, callback) launches spec.argv (argv[0] is the executable path;
//   never run through a shell) restricted to spec.cpus, with the records
//   pipe on file descriptor kRecordsFd and stderr appended to
//   spec.stderr_log_path. Each line the workload writes on the pipe is parsed
//   as a WorkloadEvent (JSON) and handed to `callback` in order, on a runtime
//   thread. Start fails (and nothing runs) when the process cannot be
//   created; a failing exec shows up as exit code 127 from Wait().
// - Wait() blocks until the process has ended and every record was
//   delivered, enforcing spec.timeout_s (> 0) on the Clock: SIGTERM, then
//   SIGKILL after spec.grace_s. Call once per Start.
// - Cancel(reason) may be called from any thread at any time: SIGTERM now,
//   SIGKILL after the grace period (enforced inside Wait()).
// - Pid() is the process id while it runs (0 before Start).
#ifndef POWERSWEEP_AGENT_RUNTIME_RUNTIME_H_
#define POWERSWEEP_AGENT_RUNTIME_RUNTIME_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "powersweep/v1/records.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

inline constexpr int kRecordsFd = 3;

struct RuntimeSpec {
  std::vector<std::string> argv;
  std::vector<int> cpus;         // empty = inherit the agent's affinity
  std::string stderr_log_path;   // empty = /dev/null
  double timeout_s = 0;          // <= 0: no timeout
  double grace_s = 5;            // SIGTERM -> SIGKILL
};

struct ExitStatus {
  int exit_code = 0;       // valid when term_signal == 0
  int term_signal = 0;     // signal that ended the process, 0 if it exited
  bool timed_out = false;
  // The timeout was on a simulated clock (a twin's), not wall time.
  bool simulated_time = false;
  bool cancelled = false;
  std::string cancel_reason;
  double timeout_s = 0;
  double wall_s = 0;       // Start to exit on the Clock
  double cpu_s = 0;        // user + system CPU time of the process (rusage)
  int64_t max_rss_bytes = 0;
  int bad_record_lines = 0;  // lines on the pipe that did not parse
  std::string last_stderr_line;

  // "" when the process exited 0 and was neither cancelled nor timed out;
  // else e.g. "workload exited with code 1: <last stderr line>",
  // "workload killed by signal 9", "timed out after 600 s" (a twin's:
  // "timed out after 600 s of simulated time (1.2 s of wall time)"),
  // "cancelled: <reason>".
  std::string FailureReason() const;
};

// Memory counters of one workload's own cgroup (a container's), cumulative
// since it started except the dirty/writeback gauges.
struct WorkloadCounters {
  int64_t pgfault = 0;
  int64_t pgmajfault = 0;
  int64_t dirty_bytes = 0;
  int64_t writeback_bytes = 0;
};

// A Runtime whose workload has a cgroup of its own (containers) also
// implements CountedRun; the executor adds its counters to the telemetry
// (KernelCounters.tenant_*) and to the run's per-tenant results. Any
// thread; nullopt when not readable (yet).
class CountedRun {
 public:
  virtual ~CountedRun() = default;
  virtual std::optional<WorkloadCounters> ReadCounters() = 0;
  // "docker container ps-...", for the result; "" when not known.
  virtual std::string ContainerName() const { return ""; }
  virtual std::string ImageId() const { return ""; }
};

// A Runtime whose workload runs in a virtual machine (VmRuntime) also
// implements VirtualMachineRun; the executor puts VmInfo() in the run's
// result (RunResult.vm). After Start, any thread.
class VirtualMachineRun {
 public:
  virtual ~VirtualMachineRun() = default;
  virtual v1::VmRun VmInfo() const = 0;
};

class Runtime {
 public:
  using RecordCallback = std::function<void(const v1::WorkloadEvent&)>;
  virtual ~Runtime() = default;
  virtual absl::Status Start(const RuntimeSpec& spec,
                             RecordCallback callback) = 0;
  virtual ExitStatus Wait() = 0;
  virtual void Cancel(const std::string& reason) = 0;
  virtual int Pid() const = 0;
};

// Grows the record pipe `fd` (either end) to 1 MiB where the kernel allows,
// so a workload writing thousands of lines a second never blocks on a full
// pipe while the reader lets lines accumulate. Best effort.
void WidenRecordPipe(int fd);

// Reads JSON-line WorkloadEvents from `fd` until EOF and closes it: each
// line is parsed and handed to `callback` in order; a last line without a
// newline counts. Lines that do not parse are counted in `*bad_lines` (the
// first three logged with `source` naming where they came from). For the
// runtimes' reader threads.
void ReadRecordLines(int fd, const std::string& source,
                     const Runtime::RecordCallback& callback,
                     std::atomic<int>* bad_lines);

// Makes the runtime of tenant `tenant` (0-based) of `spec`, following
// spec.runtime(); an error (e.g. no container engine) fails the run with
// its message.
using RunRuntimeFactory =
    std::function<absl::StatusOr<std::unique_ptr<Runtime>>(
        const v1::RunSpec& spec, int tenant)>;
// One kind of runtime for every run (native, or the twin's); container
// runs are refused.
using RuntimeFactory = std::function<std::unique_ptr<Runtime>()>;
RunRuntimeFactory NativeOnly(RuntimeFactory make);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_RUNTIME_H_
