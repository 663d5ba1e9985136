#include "common/fake_clock.h"

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(FakeClockTest, SleepAdvancesBothClocksWithoutBlocking) {
  FakeClock clock(absl::FromUnixSeconds(100));
  clock.SleepFor(absl::Milliseconds(1500));
  EXPECT_EQ(clock.Now(), absl::FromUnixMillis(101500));
  EXPECT_EQ(clock.MonotonicNanos(), 1500000000);
}

TEST(RealClockTest, MonotonicNeverGoesBack) {
  RealClock clock;
  int64_t a = clock.MonotonicNanos();
  int64_t b = clock.MonotonicNanos();
  EXPECT_LE(a, b);
}

}  // namespace
}  // namespace powersweep
