#include "workloads/runner/minibatch_timer.h"

#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

// One minibatch on a FakeClock: `before` idle time (e.g. writing the
// previous record), `stall` waiting for data, `compute` forward/backward.
MinibatchTiming RunOne(MinibatchTimer& timer, FakeClock& clock,
                       absl::Duration before, absl::Duration stall,
                       absl::Duration compute) {
  clock.Advance(before);
  timer.BeginFetch(clock.MonotonicNanos());
  clock.Advance(stall);
  timer.EndFetch(clock.MonotonicNanos());
  clock.Advance(compute);
  return timer.EndCompute(clock.MonotonicNanos());
}

TEST(MinibatchTimerTest, SplitsFirstMinibatchIntoStallAndCompute) {
  FakeClock clock;
  MinibatchTimer timer;
  timer.Start(clock.MonotonicNanos());
  MinibatchTiming t = RunOne(timer, clock, absl::Milliseconds(1),
                             absl::Milliseconds(3), absl::Milliseconds(20));
  EXPECT_DOUBLE_EQ(t.t_start_s, 0.0);
  EXPECT_DOUBLE_EQ(t.stall_s, 0.003);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.020);
  EXPECT_DOUBLE_EQ(t.e2e_s, 0.024) << "includes the 1 ms before the fetch";
}

TEST(MinibatchTimerTest, EndToEndRunsFromThePreviousMinibatchEnd) {
  FakeClock clock;
  MinibatchTimer timer;
  timer.Start(clock.MonotonicNanos());
  RunOne(timer, clock, absl::ZeroDuration(), absl::Milliseconds(2),
         absl::Milliseconds(10));
  // 5 ms writing the previous record, then the second minibatch.
  MinibatchTiming t = RunOne(timer, clock, absl::Milliseconds(5),
                             absl::Milliseconds(1), absl::Milliseconds(10));
  EXPECT_DOUBLE_EQ(t.t_start_s, 0.012);
  EXPECT_DOUBLE_EQ(t.stall_s, 0.001);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.010);
  EXPECT_DOUBLE_EQ(t.e2e_s, 0.016);
  EXPECT_DOUBLE_EQ(timer.ElapsedSeconds(clock.MonotonicNanos()), 0.028);
}

TEST(MinibatchTimerTest, EndToEndIntervalsTileTheRun) {
  FakeClock clock;
  MinibatchTimer timer;
  timer.Start(clock.MonotonicNanos());
  double sum_e2e = 0;
  for (int i = 0; i < 50; ++i) {
    MinibatchTiming t =
        RunOne(timer, clock, absl::Microseconds(37 * (i % 3)),
               absl::Microseconds(101 * (i % 5)), absl::Microseconds(900 + i));
    EXPECT_LE(t.stall_s + t.compute_s, t.e2e_s) << "minibatch " << i;
    EXPECT_NEAR(t.t_start_s, sum_e2e, 1e-12) << "minibatch " << i;
    sum_e2e += t.e2e_s;
  }
  EXPECT_NEAR(sum_e2e, timer.ElapsedSeconds(clock.MonotonicNanos()), 1e-12);
}

TEST(MinibatchTimerTest, InvariantHoldsForBackwardsOrMissingMarks) {
  MinibatchTimer timer;
  timer.Start(1000);
  timer.BeginFetch(5000);
  timer.EndFetch(4000);  // earlier than BeginFetch: treated as equal
  MinibatchTiming t = timer.EndCompute(3000);
  EXPECT_GE(t.stall_s, 0);
  EXPECT_GE(t.compute_s, 0);
  EXPECT_LE(t.stall_s + t.compute_s, t.e2e_s);
  // No BeginFetch/EndFetch marked for this one: the whole interval is compute.
  MinibatchTiming u = timer.EndCompute(9000);
  EXPECT_DOUBLE_EQ(u.stall_s, 0);
  EXPECT_DOUBLE_EQ(u.compute_s, 4000e-9);
  EXPECT_DOUBLE_EQ(u.e2e_s, 4000e-9);
}

TEST(MinibatchTimerTest,
     SumOfStallAndComputeNeverExceedsEndToEndAfterRounding) {
  MinibatchTimer timer;
  int64_t now = 1234567;
  timer.Start(now);
  for (int64_t i = 0; i < 10000; ++i) {
    timer.BeginFetch(now += (i * 7919) % 13);
    timer.EndFetch(now += (i * 104729) % 100003);
    MinibatchTiming t = timer.EndCompute(now += (i * 1299709) % 1000003);
    ASSERT_LE(t.stall_s + t.compute_s, t.e2e_s) << "minibatch " << i;
  }
}

TEST(MinibatchTimerTest, ACudaCopyIsTimedApartFromStallAndCompute) {
  MinibatchTimer timer;
  timer.Start(0);
  timer.BeginFetch(0);
  timer.EndFetch(1000);
  timer.EndCopy(1500);
  MinibatchTiming t = timer.EndCompute(4000);
  EXPECT_DOUBLE_EQ(t.stall_s, 1000e-9);
  EXPECT_DOUBLE_EQ(t.h2d_s, 500e-9);
  EXPECT_DOUBLE_EQ(t.compute_s, 2500e-9);
  EXPECT_DOUBLE_EQ(t.e2e_s, 4000e-9);
  // The next minibatch has no copy (the CPU): h2d 0, compute from the fetch.
  timer.BeginFetch(4000);
  timer.EndFetch(4200);
  MinibatchTiming u = timer.EndCompute(5000);
  EXPECT_DOUBLE_EQ(u.h2d_s, 0);
  EXPECT_DOUBLE_EQ(u.compute_s, 800e-9);
}

}  // namespace
}  // namespace powersweep
