// Baseload runs (Task TASK_BASELOAD): the idle device, measured for
// workload.duration_s with no workload process, so the controller can
// subtract idle power from other runs (incremental energy).
//
// BaseloadRuntime is the Runtime the run executor uses for them: Start()
// launches nothing (Pid() is 0, so the sampler reads no process), Wait()
// waits on the Clock until duration_s has passed (checking for Cancel
// every 50 ms of Clock time) and then delivers one `finished` event
// (stop_reason "duration") through the record callback, so a baseload run
// ends exactly like a workload run that stopped on its duration. A
// timeout_s shorter than duration_s ends it as timed out.
//
// Thread safety: Start/Wait from one thread; Cancel and Pid from any.
#ifndef POWERSWEEP_AGENT_TELEMETRY_BASELOAD_H_
#define POWERSWEEP_AGENT_TELEMETRY_BASELOAD_H_

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/runtime.h"
#include "common/clock.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// OK for a baseload RunSpec with a positive finite workload.duration_s;
// InvalidArgument naming the field otherwise.
absl::Status ValidateBaseload(const v1::RunSpec& spec);

class BaseloadRuntime : public Runtime {
 public:
  BaseloadRuntime(Clock* clock, double duration_s)
      : clock_(clock), duration_s_(duration_s) {}

  absl::Status Start(const RuntimeSpec& spec, RecordCallback callback) override;
  ExitStatus Wait() override;
  void Cancel(const std::string& reason) override;
  int Pid() const override { return 0; }

 private:
  Clock* const clock_;
  const double duration_s_;
  RuntimeSpec spec_;
  RecordCallback callback_;
  int64_t start_ns_ = 0;
  absl::Mutex mu_;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  std::string cancel_reason_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TELEMETRY_BASELOAD_H_
