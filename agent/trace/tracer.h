// Tracer: collects a run's kernel event traces (proto/powersweep/v1/
// traces.proto) while its workload runs. RunExecutor starts one session
// per run that asks for traces, right after the workload's processes
// started, and stops it once they have all ended.
//
// Start never fails the run: a kind that cannot be collected (no tracefs,
// not root, a kernel without the event, a twin) comes back from Stop() as
// a TraceMissing with the reason, and the run goes on. Kinds that follow
// the workload (syscalls, page_faults, sched) need `pids`; a run without a
// process (baseload) gets them as missing. block and writeback are
// system-wide.
//
// Implementations: KernelTracer (agent/trace/kernel_tracer.h, perf_event_open
// on tracepoints and software counters) and UnsupportedTracer (every kind
// missing with one reason: twins, which simulate no kernel).
#ifndef POWERSWEEP_AGENT_TRACE_TRACER_H_
#define POWERSWEEP_AGENT_TRACE_TRACER_H_

#include <memory>
#include <string>
#include <vector>

#include "powersweep/v1/traces.pb.h"

namespace powersweep {

class TraceSession {
 public:
  virtual ~TraceSession() = default;
  // Stops collecting and returns what was collected. Call once.
  virtual v1::RunTraces Stop() = 0;
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  // `pids`: the workload's processes (each with its threads and
  // descendants), in the host's pid namespace.
  virtual std::unique_ptr<TraceSession> Start(
      const std::vector<v1::Trace>& kinds, const std::vector<int>& pids) = 0;
};

class UnsupportedTracer : public Tracer {
 public:
  explicit UnsupportedTracer(std::string reason) : reason_(std::move(reason)) {}
  std::unique_ptr<TraceSession> Start(const std::vector<v1::Trace>& kinds,
                                      const std::vector<int>& pids) override;

 private:
  std::string reason_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_TRACER_H_
