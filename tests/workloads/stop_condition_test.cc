#include "workloads/runner/stop_condition.h"

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(StopConditionTest, MinibatchLimitStopsExactlyAtTheLimit) {
  StopCondition stop(/*epochs=*/0, /*minibatches=*/40, /*duration_s=*/0);
  EXPECT_EQ(stop.Check(39, 0, 100.0), "");
  EXPECT_EQ(stop.Check(40, 0, 100.0), "minibatches");
}

TEST(StopConditionTest, EpochLimitStopsWhenEpochsAreComplete) {
  StopCondition stop(2, 0, 0);
  EXPECT_EQ(stop.Check(1873, 1, 5.0), "");
  EXPECT_EQ(stop.Check(1874, 2, 5.0), "epochs");
}

TEST(StopConditionTest, DurationLimitStopsOnceElapsed) {
  StopCondition stop(0, 0, 1.5);
  EXPECT_EQ(stop.Check(10, 0, 1.49), "");
  EXPECT_EQ(stop.Check(11, 0, 1.5), "duration");
}

TEST(StopConditionTest, FirstLimitReachedWins) {
  StopCondition stop(/*epochs=*/1, /*minibatches=*/1000, /*duration_s=*/2.0);
  EXPECT_EQ(stop.Check(300, 0, 2.1), "duration");
  EXPECT_EQ(stop.Check(937, 1, 1.0), "epochs");
  EXPECT_EQ(stop.Check(1000, 1, 3.0), "minibatches")
      << "several reached by the same minibatch: minibatches first";
}

}  // namespace
}  // namespace powersweep
