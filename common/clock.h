// Clock: the only way powersweep logic reads time or sleeps.
//
// RealClock reads the system clocks. Tests drive FakeClock
// (common/fake_clock.h, in powersweep_common_testing), which never blocks.
// Both are thread-safe.
#ifndef POWERSWEEP_COMMON_CLOCK_H_
#define POWERSWEEP_COMMON_CLOCK_H_

#include <cstdint>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace powersweep {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time (for timestamps users read).
  virtual absl::Time Now() = 0;
  // Monotonic nanoseconds from an arbitrary origin (for durations).
  virtual int64_t MonotonicNanos() = 0;
  // Blocks the calling thread for `d` (FakeClock: advances time instead).
  virtual void SleepFor(absl::Duration d) = 0;
  // Blocks until `n` is notified or `d` has passed; true if notified.
  // A thread that waits for an event and a deadline wakes once, not on
  // every poll step (FakeClock: advances time by `d` unless already
  // notified).
  virtual bool WaitFor(absl::Notification* n, absl::Duration d) = 0;
};

class RealClock : public Clock {
 public:
  absl::Time Now() override;
  int64_t MonotonicNanos() override;
  void SleepFor(absl::Duration d) override;
  bool WaitFor(absl::Notification* n, absl::Duration d) override;
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_CLOCK_H_
