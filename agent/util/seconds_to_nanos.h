// SecondsToNanos: a number of seconds (a double from a RunSpec, a flag or
// a configuration) as int64 nanoseconds, without the undefined behaviour of
// a plain static_cast when the double is NaN, infinite or out of range.
// NaN and values <= 0 give 0; values above kMaxDurationNanos (about 31
// years) give kMaxDurationNanos, small enough that adding it to a
// monotonic clock reading cannot overflow int64 either.
#ifndef POWERSWEEP_AGENT_UTIL_SECONDS_TO_NANOS_H_
#define POWERSWEEP_AGENT_UTIL_SECONDS_TO_NANOS_H_

#include <cstdint>

namespace powersweep {

inline constexpr int64_t kMaxDurationNanos = 1000000000000000000;  // 1e18

inline int64_t SecondsToNanos(double seconds) {
  // `!(x > 0)` is also true for NaN.
  if (!(seconds > 0)) return 0;
  const double ns = seconds * 1e9;
  if (!(ns < static_cast<double>(kMaxDurationNanos))) return kMaxDurationNanos;
  return static_cast<int64_t>(ns);
}

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_UTIL_SECONDS_TO_NANOS_H_
