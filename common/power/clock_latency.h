// How long a new clock setting takes to take effect on a Jetson: about
// 1 ms for the CPU, 5 ms for the GPU and 8 ms for the memory (EMC) clock on
// Orin (Kang 2026, arXiv 2606.16106; see docs/jetson.md). The Jetson
// platform waits at least this long after writing knobs before it reads
// them back as settled; twins report it as their (modeled) settle time.
#ifndef POWERSWEEP_COMMON_POWER_CLOCK_LATENCY_H_
#define POWERSWEEP_COMMON_POWER_CLOCK_LATENCY_H_

#include <algorithm>

#include "absl/time/time.h"

namespace powersweep {

inline constexpr absl::Duration kCpuClockLatency = absl::Milliseconds(1);
inline constexpr absl::Duration kGpuClockLatency = absl::Milliseconds(5);
inline constexpr absl::Duration kEmcClockLatency = absl::Milliseconds(8);

// The largest latency of the knobs changed; zero when none is.
inline absl::Duration ClockSettleLatency(bool cpu, bool gpu, bool emc) {
  absl::Duration d = absl::ZeroDuration();
  if (cpu) d = kCpuClockLatency;
  if (gpu) d = std::max(d, kGpuClockLatency);
  if (emc) d = std::max(d, kEmcClockLatency);
  return d;
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_CLOCK_LATENCY_H_
