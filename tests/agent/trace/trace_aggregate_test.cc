#include "agent/trace/trace_aggregate.h"

#include <sys/syscall.h>

#include "agent/trace/syscall_names.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(SyscallNamesTest, NamesThisTargetsNumbers) {
  EXPECT_EQ(SyscallName(SYS_read), "read");
  EXPECT_EQ(SyscallName(SYS_futex), "futex");
  EXPECT_EQ(SyscallName(SYS_openat), "openat");
  EXPECT_EQ(SyscallName(99999), "nr_99999");
  EXPECT_GT(SyscallNameCount(), 250);
}

TEST(IntervalsTest, GapsBetweenSortedTimes) {
  // Out of order, as several CPUs' buffers deliver them: gaps 1, 2, 3 s.
  IntervalStats s = IntervalsOf({3'000'000'000, 0, 6'000'000'000,
                                 1'000'000'000});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.mean_s, 2.0);
  EXPECT_DOUBLE_EQ(s.sd_s, 1.0);
  EXPECT_DOUBLE_EQ(s.p50_s, 2.0);
  EXPECT_DOUBLE_EQ(s.max_s, 3.0);
  EXPECT_EQ(IntervalsOf({5}).count, 0);
  EXPECT_EQ(IntervalsOf({}).count, 0);
}

TEST(TraceAggregatorTest, RowsByKindThenLargestCount) {
  TraceAggregator agg;
  for (int i = 0; i < 3; ++i) agg.AddSyscall(SYS_read);
  agg.AddSyscall(SYS_futex);
  agg.AddBlock(/*insert=*/true, 'W', 4096);
  agg.AddBlock(/*insert=*/true, 'W', 8192);
  agg.AddBlock(/*insert=*/false, 'R', 512);
  agg.AddWriteback("periodic", 0);
  agg.AddWriteback("periodic", 5'000'000'000);
  agg.AddWriteback("background", 1'000'000'000);
  agg.SetCount(v1::TRACE_PAGE_FAULTS, "minor", false, 1234);
  agg.AddLost(7);
  v1::RunTraces t = agg.Finish();
  ASSERT_EQ(t.counts_size(), 8);
  EXPECT_EQ(t.counts(0).name(), "read");
  EXPECT_EQ(t.counts(0).count(), 3);
  EXPECT_FALSE(t.counts(0).system_wide());
  EXPECT_EQ(t.counts(1).name(), "futex");
  EXPECT_EQ(t.counts(2).name(), "insert W");
  EXPECT_EQ(t.counts(2).count(), 2);
  EXPECT_EQ(t.counts(2).bytes(), 12288);
  EXPECT_TRUE(t.counts(2).system_wide());
  EXPECT_EQ(t.counts(3).name(), "issue R");
  // Every reason's starts (0, 1 and 5 s): gaps of 1 and 4 s.
  EXPECT_EQ(t.counts(4).name(), "all");
  EXPECT_EQ(t.counts(4).count(), 3);
  EXPECT_EQ(t.counts(4).interval_count(), 2);
  EXPECT_DOUBLE_EQ(t.counts(4).interval_mean_s(), 2.5);
  EXPECT_DOUBLE_EQ(t.counts(4).interval_max_s(), 4.0);
  EXPECT_EQ(t.counts(5).name(), "periodic");
  EXPECT_EQ(t.counts(5).interval_count(), 1);
  EXPECT_DOUBLE_EQ(t.counts(5).interval_mean_s(), 5.0);
  EXPECT_EQ(t.counts(6).name(), "background");
  EXPECT_EQ(t.counts(6).interval_count(), 0);
  EXPECT_EQ(t.counts(7).kind(), v1::TRACE_PAGE_FAULTS);
  EXPECT_EQ(t.counts(7).count(), 1234);
  EXPECT_EQ(t.lost_events(), 7);
}

}  // namespace
}  // namespace powersweep
