// The controller's own pauses and deadlines: a controller that did not run
// for a while (SIGSTOP) gives every agent its grace before judging it
// silent; a run whose agent heartbeats but never ends it is failed once
// past its timeout plus the controller's margin.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using FleetPauseTest = FleetTest;

TEST_F(FleetPauseTest, AfterAPauseEveryAgentGetsItsGraceBeforeItIsJudged) {
  auto runs = AddSweep({HostRun()});
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  SendStarted("host-a", runs[0]);

  // The controller was stopped for 40 s: nothing arrived meanwhile.
  clock_.Advance(absl::Seconds(40));
  fleet_->NoteStall(absl::Seconds(40));
  fleet_->CheckLiveness();
  EXPECT_FALSE(a->closed());
  EXPECT_FALSE(b->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);

  // host-a's queued heartbeats arrive; host-b stays silent.
  for (int i = 0; i < 7; ++i) {
    clock_.Advance(absl::Seconds(1));
    SendHeartbeat("host-a");
    fleet_->CheckLiveness();
  }
  // 7 s after the pause ended: host-b has had its 6 s; host-a spoke.
  EXPECT_FALSE(a->closed());
  EXPECT_TRUE(b->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
}

TEST_F(FleetPauseTest, WithoutANotedPauseTheSameSilenceIsJudged) {
  auto runs = AddSweep({HostRun()});
  auto a = Connect("host-a");
  SendStarted("host-a", runs[0]);
  clock_.Advance(absl::Seconds(40));
  fleet_->CheckLiveness();
  EXPECT_TRUE(a->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
}

TEST_F(FleetPauseTest, ARunHeldPastItsTimeoutAndMarginIsFailedAndCancelled) {
  v1::RunSpec spec = HostRun();
  spec.set_timeout_s(10);
  auto runs = AddSweep({spec, HostRun()});
  auto a = Connect("host-a");
  SendStarted("host-a", runs[0]);

  // The agent heartbeats but never ends the run: 10 s timeout + 120 s
  // margin, checked by the scan every reconnect_grace / 3.
  for (int i = 0; i < 125; ++i) {
    clock_.Advance(absl::Seconds(1));
    SendHeartbeat("host-a");
    fleet_->CheckLiveness();
  }
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  for (int i = 0; i < 20; ++i) {
    clock_.Advance(absl::Seconds(1));
    SendHeartbeat("host-a");
    fleet_->CheckLiveness();
  }
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(Run(runs[0]).reason(),
              HasSubstr("no result from agent host-a within the run's "
                        "timeout (10 s) plus the controller's margin"));
  EXPECT_THAT(a->CancelledRunIds(), ElementsAre(runs[0]));
  EXPECT_FALSE(a->closed());
}

}  // namespace
}  // namespace powersweep
