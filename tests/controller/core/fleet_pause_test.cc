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

namespace powersweep {
namespace {

using FleetMissedLeaseTest = FleetTest;

TEST_F(FleetMissedLeaseTest, AnAgentThatIgnoresAssignmentsDoesNotHoldTheQueue) {
  auto runs = AddSweep({HostRun(), HostRun()});
  auto bad = Connect("host-a");  // gets run 1, never answers
  auto good = Connect("host-b");  // gets run 2
  ASSERT_THAT(bad->AssignedRunIds(), ElementsAre(runs[0]));
  ASSERT_THAT(good->AssignedRunIds(), ElementsAre(runs[1]));
  SendStarted("host-b", runs[1]);

  clock_.Advance(absl::Seconds(16));  // past the 15 s lease
  SendHeartbeat("host-b");
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  // It heartbeats "idle" (clearing what it might still execute), but is
  // not given the run it ignored again.
  SendHeartbeat("host-a");
  fleet_->Dispatch();
  EXPECT_THAT(bad->AssignedRunIds(), ElementsAre(runs[0]));

  // The healthy agent takes it as soon as it is free.
  SendBatch("host-b", runs[1], 1);
  SendFinished("host-b", runs[1], 1);
  EXPECT_THAT(good->AssignedRunIds(), ElementsAre(runs[1], runs[0]));
}

TEST_F(FleetMissedLeaseTest, TheHoldEndsAndDoublesWhileItGoesOnIgnoring) {
  auto runs = AddSweep({HostRun()});
  auto bad = Connect("host-a");
  ASSERT_THAT(bad->AssignedRunIds(), ElementsAre(runs[0]));
  auto tick = [&](int seconds) {
    for (int i = 0; i < seconds; ++i) {
      clock_.Advance(absl::Seconds(1));
      SendHeartbeat("host-a");
      fleet_->CheckLiveness();
      fleet_->Dispatch();
    }
  };
  tick(16);  // lease 1 expires: held 15 s
  EXPECT_THAT(bad->AssignedRunIds(), ElementsAre(runs[0]));
  tick(15);  // the hold is over: offered again
  EXPECT_THAT(bad->AssignedRunIds(), ElementsAre(runs[0], runs[0]));
  tick(16);  // lease 2 expires: held 30 s
  tick(20);
  EXPECT_EQ(bad->AssignedRunIds().size(), 2u);
  tick(12);
  EXPECT_EQ(bad->AssignedRunIds().size(), 3u);
  // Once it answers, it is an ordinary agent again.
  SendStarted("host-a", runs[0]);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
}

}  // namespace
}  // namespace powersweep
