#include "common/clock.h"

#include <time.h>

#include "absl/time/clock.h"

namespace powersweep {

absl::Time RealClock::Now() { return absl::Now(); }

int64_t RealClock::MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

void RealClock::SleepFor(absl::Duration d) { absl::SleepFor(d); }

bool RealClock::WaitFor(absl::Notification* n, absl::Duration d) {
  return n->WaitForNotificationWithTimeout(d);
}

}  // namespace powersweep
