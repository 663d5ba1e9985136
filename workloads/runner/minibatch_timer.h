// MinibatchTimer: the arithmetic of per-minibatch timing, fed monotonic
// timestamps (nanoseconds, e.g. Clock::MonotonicNanos()) by the compute
// thread. It reads no clock itself, so tests drive it with a FakeClock.
//
// Per minibatch the caller marks, in order:
//   BeginFetch(t0)  before asking the loader for the next minibatch
//   EndFetch(t1)    when the minibatch is in hand
//   EndCopy(tc)     (CUDA only) when its copy to the device has finished
//   EndCompute(t2)  after forward (+ backward + step) and the loss read
// and gets back
//   stall_s   = t1 - t0
//   h2d_s     = tc - t1 (0 without EndCopy)
//   compute_s = t2 - tc (t2 - t1 without EndCopy)
//   e2e_s     = t2 - (the previous EndCompute, or Start for the first)
//   t_start_s = (the previous EndCompute, or Start) - Start
// so each e2e interval covers everything the compute thread did since the
// previous minibatch ended: writing the previous minibatch's record, the
// stop check, the fetch and the compute. The e2e intervals tile the run
// without gaps, so their sum is the time from Start to the last EndCompute.
//
// A timestamp earlier than the one before it (which a monotonic clock never
// gives) is treated as equal to it, so stall_s, h2d_s, compute_s >= 0 and
// stall_s + h2d_s + compute_s <= e2e_s hold by construction.
//
// Not thread-safe: one timer per compute thread.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_TIMER_H_
#define POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_TIMER_H_

#include <cstdint>

namespace powersweep {

struct MinibatchTiming {
  double t_start_s = 0;
  double stall_s = 0;
  double compute_s = 0;
  double e2e_s = 0;
  double h2d_s = 0;
};

class MinibatchTimer {
 public:
  // Starts timing; must be called once before the first BeginFetch.
  void Start(int64_t now_ns);
  void BeginFetch(int64_t now_ns);
  void EndFetch(int64_t now_ns);
  void EndCopy(int64_t now_ns);
  MinibatchTiming EndCompute(int64_t now_ns);
  // Seconds from Start to `now_ns` (clamped at 0).
  double ElapsedSeconds(int64_t now_ns) const;

 private:
  // Clamps `now_ns` to be no earlier than the latest mark.
  int64_t Mark(int64_t now_ns);

  int64_t start_ns_ = 0;
  int64_t prev_end_ns_ = 0;
  int64_t fetch_begin_ns_ = 0;
  int64_t fetch_end_ns_ = 0;
  int64_t copy_end_ns_ = 0;
  int64_t latest_ns_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_TIMER_H_
