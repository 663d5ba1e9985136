#include "workloads/runner/minibatch_timer.h"

#include <algorithm>

namespace powersweep {
namespace {

double Seconds(int64_t ns) { return static_cast<double>(ns) * 1e-9; }

}  // namespace

void MinibatchTimer::Start(int64_t now_ns) {
  start_ns_ = prev_end_ns_ = fetch_begin_ns_ = fetch_end_ns_ = copy_end_ns_ =
      latest_ns_ = now_ns;
}

int64_t MinibatchTimer::Mark(int64_t now_ns) {
  latest_ns_ = std::max(latest_ns_, now_ns);
  return latest_ns_;
}

void MinibatchTimer::BeginFetch(int64_t now_ns) {
  fetch_begin_ns_ = Mark(now_ns);
}

void MinibatchTimer::EndFetch(int64_t now_ns) { fetch_end_ns_ = Mark(now_ns); }

void MinibatchTimer::EndCopy(int64_t now_ns) { copy_end_ns_ = Mark(now_ns); }

MinibatchTiming MinibatchTimer::EndCompute(int64_t now_ns) {
  const int64_t end = Mark(now_ns);
  // A fetch not marked for this minibatch counts as starting (and ending)
  // no earlier than the previous minibatch's end.
  const int64_t fetch_begin = std::max(fetch_begin_ns_, prev_end_ns_);
  const int64_t fetch_end = std::max(fetch_end_ns_, fetch_begin);
  // A copy not marked for this minibatch took no time.
  const int64_t copy_end = std::max(copy_end_ns_, fetch_end);
  MinibatchTiming t;
  t.t_start_s = Seconds(prev_end_ns_ - start_ns_);
  t.stall_s = Seconds(fetch_end - fetch_begin);
  t.h2d_s = Seconds(copy_end - fetch_end);
  t.compute_s = Seconds(end - copy_end);
  t.e2e_s = Seconds(end - prev_end_ns_);
  // Guard the invariant against floating-point rounding of the sum.
  t.e2e_s = std::max(t.e2e_s, t.stall_s + t.h2d_s + t.compute_s);
  prev_end_ns_ = end;
  return t;
}

double MinibatchTimer::ElapsedSeconds(int64_t now_ns) const {
  return Seconds(std::max<int64_t>(now_ns - start_ns_, 0));
}

}  // namespace powersweep
