// TraceAggregator: turns the kernel tracer's events into a run's
// RunTraces (proto/powersweep/v1/traces.proto), on the agent, so one
// summary per run crosses gRPC, never one message per event.
//
// - syscalls: a count per system call number, named at Finish
//   (SyscallName), the workload's processes only;
// - block: count and bytes per "insert R" / "issue W" ... (operation = the
//   first letter of the request's rwbs flags), system-wide;
// - writeback: per reason, the count and the intervals between
//   consecutive starts (timestamps may arrive out of order from several
//   CPUs' buffers; they are sorted at Finish), system-wide, and the same
//   over every reason's starts as the row "all";
// - SetCount: a counter read at the end (page faults, context switches).
// Finish orders rows by kind, then count (largest first), then name.
// Not thread-safe: one owner (the tracer's reader thread, then Stop).
#ifndef POWERSWEEP_AGENT_TRACE_TRACE_AGGREGATE_H_
#define POWERSWEEP_AGENT_TRACE_TRACE_AGGREGATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "powersweep/v1/traces.pb.h"

namespace powersweep {

// Statistics of the gaps between sorted timestamps (nanoseconds); all 0
// with fewer than two. sd is the sample standard deviation (0 with one
// gap); p50 the median gap.
struct IntervalStats {
  int64_t count = 0;
  double mean_s = 0;
  double sd_s = 0;
  double p50_s = 0;
  double max_s = 0;
};
IntervalStats IntervalsOf(std::vector<int64_t> times_ns);

class TraceAggregator {
 public:
  void AddSyscall(int64_t nr) { ++syscalls_[nr]; }
  void AddBlock(bool insert, char op, int64_t bytes);
  void AddWriteback(const std::string& reason, int64_t t_ns);
  void SetCount(v1::Trace kind, const std::string& name, bool system_wide,
                int64_t count);
  void AddLost(int64_t lost) { lost_ += lost; }
  int64_t lost() const { return lost_; }

  // The aggregated rows (RunTraces.counts) and lost_events; the caller
  // adds requested, missing and the costs.
  v1::RunTraces Finish() const;

 private:
  std::unordered_map<int64_t, int64_t> syscalls_;
  std::map<std::string, std::pair<int64_t, int64_t>> block_;  // count, bytes
  std::map<std::string, std::vector<int64_t>> writeback_;
  std::vector<v1::TraceCount> counts_;
  int64_t lost_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_TRACE_TRACE_AGGREGATE_H_
