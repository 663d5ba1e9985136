#include "common/fake_clock.h"

namespace powersweep {

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
