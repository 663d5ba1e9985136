#include "common/clock.h"

#include <time.h>

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

FakeClock::FakeClock(absl::Time start) : now_(start) {}

absl::Time FakeClock::Now() {
  absl::MutexLock lock(&mu_);
  return now_;
}

int64_t FakeClock::MonotonicNanos() {
  absl::MutexLock lock(&mu_);
  return mono_ns_;
}

void FakeClock::SleepFor(absl::Duration d) { Advance(d); }

bool FakeClock::WaitFor(absl::Notification* n, absl::Duration d) {
  if (n->HasBeenNotified()) return true;
  Advance(d);
  return n->HasBeenNotified();
}

void FakeClock::Advance(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  now_ += d;
  mono_ns_ += absl::ToInt64Nanoseconds(d);
}

}  // namespace powersweep
