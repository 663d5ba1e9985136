// FakeClock: a Clock (common/clock.h) driven by tests. Now() and
// MonotonicNanos() move only when Advance() is called; SleepFor advances
// time immediately instead of blocking, and WaitFor does the same unless
// the notification was already given. Thread-safe.
//
// Built into powersweep_common_testing, which only tests link.
#ifndef POWERSWEEP_COMMON_FAKE_CLOCK_H_
#define POWERSWEEP_COMMON_FAKE_CLOCK_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace powersweep {

class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1700000000));
  absl::Time Now() override;
  int64_t MonotonicNanos() override;
  void SleepFor(absl::Duration d) override;
  bool WaitFor(absl::Notification* n, absl::Duration d) override;
  void Advance(absl::Duration d);

 private:
  absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  int64_t mono_ns_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_FAKE_CLOCK_H_
