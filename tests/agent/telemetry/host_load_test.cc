// Other processes' CPU use during a run: the machine's busy time less the
// workload's and the agent's, in cores.
#include "agent/telemetry/host_load.h"

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(HostLoadTest, BusySecondsSumsTheCores) {
  std::map<int, CpuTimes> cores;
  cores[0] = {1000, 400};  // 600 busy jiffies
  cores[1] = {1000, 900};  // 100
  EXPECT_DOUBLE_EQ(BusySeconds(cores, 100), 7.0);
  EXPECT_EQ(BusySeconds(cores, 0), 0);
}

// 10 s run: the machine was busy 29 s, the workload used 17 s and the
// agent 0.5 s, so other processes kept 1.15 cores busy.
TEST(HostLoadTest, OtherProcessesCoresAreWhatTheRunDidNotUse) {
  EXPECT_DOUBLE_EQ(*OtherCpuCores(100, 129, 17, 0.5, 10), 1.15);
  // An idle machine: rounding cannot make it negative.
  EXPECT_DOUBLE_EQ(*OtherCpuCores(100, 117.4, 17, 0.5, 10), 0);
  EXPECT_FALSE(OtherCpuCores(100, 129, 17, 0.5, 0).has_value());
  EXPECT_FALSE(OtherCpuCores(100, 90, 0, 0, 10).has_value());
}

}  // namespace
}  // namespace powersweep
