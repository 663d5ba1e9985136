// KernelTracer: the Tracer (agent/trace/tracer.h) of a real Linux kernel,
// through perf_event_open(2); no `perf` binary, no ftrace buffer of its
// own. What it collects, per kind:
//
//   syscalls     tracepoint raw_syscalls:sys_enter, one event per (thread
//                of the workload at Start, CPU) with inherit, so threads
//                and processes the workload creates later are followed;
//                every entry is a record in a per-CPU ring buffer whose
//                `id` is counted by number (named at the end).
//   block        block:block_rq_insert and block:block_rq_issue on every
//                CPU for every process (pid -1): count and bytes
//                (nr_sector x 512) by operation (rwbs' first letter).
//   writeback    writeback:writeback_start on every CPU: count by reason
//                (the names the kernel's format prints for it) and the
//                intervals between starts (record timestamps).
//   page_faults  software counters page-faults-min and -maj per thread
//                with inherit, read at the end.
//   sched        software counters context-switches and cpu-migrations,
//                the same way.
//
// Tracepoint ids and field offsets come from tracefs (events/<system>/
// <name>/format), found at options.tracefs_dirs; when none is mounted and
// the agent is root, tracefs is mounted at the first of them. A reader
// thread drains the per-CPU ring buffers every options.poll_s (or when a
// quarter of one is full); records the kernel had to drop are counted in
// lost_events.
//
// Threads that appear between the listing of the workload's threads at
// Start and their attach (microseconds) are not followed; a native
// workload is attached before it has started any thread.
//
// The cost: RunTraces.tracer_cpu_s is the CPU time of the reader thread
// and of Start/Stop on the caller's thread; the kernel's own cost per
// event shows in the workload's times (tests/bench/trace_overhead_bench.sh).
//
// Thread safety: Start and the session's Stop from one thread; the
// session's reader thread is internal.
#ifndef POWERSWEEP_AGENT_TRACE_KERNEL_TRACER_H_
#define POWERSWEEP_AGENT_TRACE_KERNEL_TRACER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/trace/trace_targets.h"
#include "agent/trace/tracer.h"

namespace powersweep {

struct KernelTracerOptions {
  std::string proc_root = "/proc";
  std::vector<std::string> tracefs_dirs = {"/sys/kernel/tracing",
                                           "/sys/kernel/debug/tracing"};
  bool mount_tracefs = true;  // when root and none of tracefs_dirs is
  int ring_pages = 64;        // data pages per CPU ring (a power of two)
  double poll_s = 0.1;
};

class KernelTracer : public Tracer {
 public:
  explicit KernelTracer(KernelTracerOptions options = {});
  std::unique_ptr<TraceSession> Start(const std::vector<v1::Trace>& kinds,
                                      const std::vector<int>& pids) override;

 private:
  KernelTracerOptions options_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_KERNEL_TRACER_H_
