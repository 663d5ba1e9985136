// The controller side of the session protocol's safety rules: assignment
// replies and lease deadlines, reconciliation after either side restarts,
// resend requests, session identity and quotas. Each test reproduces a way
// a run got stuck or completed work was lost before the rule existed.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using FleetProtocolTest = FleetTest;

v1::AgentMessage Reply(int64_t run_id, int32_t attempt, bool accepted,
                       const std::string& reason = "", int64_t busy = 0) {
  v1::AgentMessage m;
  v1::AssignReply* r = m.mutable_assign_reply();
  r->set_run_id(run_id);
  r->set_attempt(attempt);
  r->set_accepted(accepted);
  r->set_reason(reason);
  r->set_busy_run_id(busy);
  r->set_busy_attempt(busy != 0 ? 1 : 0);
  return m;
}

v1::AgentMessage Heartbeat(int64_t run_id, int32_t attempt = 1) {
  v1::AgentMessage m;
  m.mutable_heartbeat()->set_current_run_id(run_id);
  m.mutable_heartbeat()->set_current_attempt(attempt);
  return m;
}

v1::RunProgress Progress(int64_t run_id, bool executing, bool finished,
                         int64_t last_seq) {
  v1::RunProgress p;
  p.set_run_id(run_id);
  p.set_attempt(1);
  p.set_executing(executing);
  p.set_finished(finished);
  p.set_last_seq(last_seq);
  return p;
}

// Observed: an agent that reconnected while still busy with a run the
// controller had re-queued ignored the new assignment, which stayed
// LEASED forever.
TEST_F(FleetProtocolTest, ABusyAgentsRejectionPutsTheRunBackAndItIsNotStuck) {
  auto runs = AddSweep({HostRun(), HostRun()}, /*max_retries=*/1);
  auto first = Connect("host-0");
  ASSERT_THAT(first->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("host-0", runs[0]);

  // The session breaks; the run fails and is re-queued, and the agent,
  // still executing attempt 1, is handed the next run on reconnecting
  // without reporting it (an agent that lost track of it).
  fleet_->Disconnect("host-0", first.get());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  auto second = Connect("host-0");
  ASSERT_THAT(second->AssignedRunIds(), ElementsAre(runs[0]));

  Deliver("host-0", Reply(runs[0], 2, false, "busy with run (attempt 1)",
                          runs[0]));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_PENDING).back(),
              HasSubstr("rejected the assignment: busy"));
  // It is told to drop the old attempt, and gets nothing meanwhile.
  EXPECT_THAT(second->CancelledRunIds(), ElementsAre(runs[0]));
  EXPECT_EQ(second->AssignedRunIds().size(), 1u);

  // The old attempt ends there (its RunFinished is acknowledged, not
  // stored): the agent takes runs again.
  v1::AgentMessage old_end;
  old_end.mutable_run_finished()->mutable_result()->set_run_id(runs[0]);
  old_end.mutable_run_finished()->set_attempt(1);
  Deliver("host-0", old_end);
  ASSERT_EQ(second->AssignedRunIds().size(), 2u);
  EXPECT_EQ(second->AssignedRunIds()[1], runs[0]);
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_LEASED);
}

TEST_F(FleetProtocolTest, AnUnansweredAssignmentIsReleasedAtItsDeadline) {
  auto runs = AddSweep({HostRun()});
  auto silent = Connect("host-0");
  ASSERT_THAT(silent->AssignedRunIds(), ElementsAre(runs[0]));
  // It keeps heartbeating (so it is not dropped) but never answers.
  clock_.Advance(absl::Seconds(4));
  Deliver("host-0", Heartbeat(0));
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_LEASED);  // before the deadline
  clock_.Advance(absl::Seconds(12));
  Deliver("host-0", Heartbeat(0));
  auto other = Connect("host-1");
  fleet_->CheckLiveness();

  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_PENDING),
              ElementsAre(HasSubstr("did not answer the assignment within")));
  EXPECT_THAT(silent->CancelledRunIds(), ElementsAre(runs[0]));
  // Someone else may take it now; nothing is stuck.
  EXPECT_THAT(other->AssignedRunIds(), ElementsAre(runs[0]));
}

TEST_F(FleetProtocolTest, AnAcceptedAssignmentHasNoDeadline) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  Deliver("host-0", Reply(runs[0], 1, true));
  clock_.Advance(absl::Seconds(5));
  Deliver("host-0", Heartbeat(runs[0]));
  clock_.Advance(absl::Seconds(5));
  Deliver("host-0", Heartbeat(runs[0]));
  clock_.Advance(absl::Seconds(5));
  Deliver("host-0", Heartbeat(runs[0]));
  clock_.Advance(absl::Seconds(5));
  Deliver("host-0", Heartbeat(runs[0]));
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_LEASED);
  EXPECT_THAT(conn->CancelledRunIds(), IsEmpty());
}

// A peer that keeps heartbeating but stops reading its stream would hold
// its run (and the writer thread) for as long as it liked.
TEST_F(FleetProtocolTest, ASessionWhoseWritesWaitPastTheTimeoutIsEnded) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  auto stalled = Connect("host-0");
  Deliver("host-0", Reply(runs[0], 1, true));
  SendStarted("host-0", runs[0]);
  auto reading = Connect("host-1");

  stalled->SetWriteWaiting(absl::Seconds(19));  // default limit: 20 s
  fleet_->CheckLiveness();
  EXPECT_FALSE(stalled->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);

  stalled->SetWriteWaiting(absl::Seconds(21));
  fleet_->CheckLiveness();
  EXPECT_TRUE(stalled->closed());
  EXPECT_FALSE(reading->closed());
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("host-0 stopped reading its stream")));
  // Retried on the agent that reads.
  EXPECT_THAT(reading->AssignedRunIds(), ElementsAre(runs[0]));
}

// Observed: after a controller restart, runs the agents had finished but
// whose RunFinished was not yet acknowledged were failed as lost and their
// complete spooled data discarded.
TEST_F(FleetProtocolTest, AControllerRestartKeepsARunTheAgentFinished) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  // The agent finishes (batch 2 and RunFinished spooled); the controller
  // dies before storing them.
  RestartController();
  fleet_->CheckLiveness();  // notes the orphans, as the controller's main does

  v1::Register reg = RegisterOf("host-0");
  *reg.add_runs() = Progress(runs[0], false, true, 2);
  absl::Status st;
  auto conn = ConnectWith(reg, &st);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  EXPECT_THAT(conn->AssignedRunIds(), IsEmpty());  // busy delivering it

  // The spool replays; the run ends done with every batch.
  SendBatch("host-0", runs[0], 1);
  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], 2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED), IsEmpty());
  clock_.Advance(absl::Seconds(60));
  Deliver("host-0", Heartbeat(0));
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
}

TEST_F(FleetProtocolTest, ARunTheRestartedAgentLostFailsNamingTheAgent) {
  auto runs = AddSweep({HostRun()});
  auto first = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  RestartController();
  // The agent restarted too: its spool has batch 1 but the workload died.
  v1::Register reg = RegisterOf("host-0");
  *reg.add_runs() = Progress(runs[0], false, false, 1);
  absl::Status st;
  ConnectWith(reg, &st);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("agent host-0 restarted during the run")));
}

TEST_F(FleetProtocolTest, RunsOfAgentsThatNeverComeBackAreReleasedAfterGrace) {
  auto runs = AddSweep({HostRun(), HostRun()}, /*max_retries=*/1);
  Connect("host-0");
  Connect("host-1");
  SendStarted("host-0", runs[0]);  // host-1 holds runs[1], leased only
  FleetOptions options;
  options.reconnect_grace = absl::Seconds(30);
  RestartController(options);
  fleet_->CheckLiveness();
  clock_.Advance(absl::Seconds(20));
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);  // still within grace
  clock_.Advance(absl::Seconds(15));
  fleet_->CheckLiveness();
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("the controller restarted and agent "
                                    "host-0 did not come back within")));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);  // retried
  EXPECT_EQ(State(runs[1]), v1::RUN_STATE_PENDING);  // leased: no attempt used
  EXPECT_EQ(Run(runs[1]).spec().attempt(), 1);
}

// Observed: RunFinished waited forever for a batch that had failed to store.
TEST_F(FleetProtocolTest, AMissingBatchIsAskedForAgain) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  SendBatch("host-0", runs[0], 3);
  SendFinished("host-0", runs[0], 3);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  std::vector<int64_t> asked;
  for (const v1::ControllerMessage& m : conn->sent()) {
    if (m.has_resend()) {
      EXPECT_EQ(m.resend().run_id(), runs[0]);
      asked.assign(m.resend().seqs().begin(), m.resend().seqs().end());
    }
  }
  EXPECT_THAT(asked, ElementsAre(2));
  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], 3);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
}

// Observed: a peer registering with a live agent's device_id replaced its
// session and got its fake result stored as done.
TEST_F(FleetProtocolTest, AnImpostorCannotReplaceALiveSession) {
  auto runs = AddSweep({HostRun()});
  auto real = Connect("host-0");
  ASSERT_THAT(real->AssignedRunIds(), ElementsAre(runs[0]));

  v1::Register impostor = RegisterOf("host-0");
  impostor.set_resume_token("guessed");
  auto fake = std::make_shared<FakeAgentConnection>();
  absl::Status st = fleet_->Register(impostor, fake);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(st.message()), HasSubstr("live session"));
  EXPECT_FALSE(real->closed());

  // Its messages on its own connection change nothing.
  v1::AgentMessage done;
  done.mutable_run_finished()->mutable_result()->set_run_id(runs[0]);
  done.mutable_run_finished()->mutable_result()->set_ok(true);
  fleet_->HandleMessage("host-0", fake.get(), done);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_LEASED);

  // A certificate for the device (verified by the transport) may replace it.
  absl::Status verified;
  auto replacement = ConnectWith(RegisterOf("host-0"), &verified,
                                 /*identity_verified=*/true);
  EXPECT_TRUE(verified.ok()) << verified;
  EXPECT_TRUE(real->closed());
}

TEST_F(FleetProtocolTest, DeviceQuotaRefusesNewDevicesButNotKnownOnes) {
  FleetOptions options;
  options.max_devices = 2;
  RestartController(options);
  Connect("host-0");
  Connect("host-1");
  absl::Status st;
  ConnectWith(RegisterOf("host-2"), &st);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(st.message()), HasSubstr("--max_devices"));
  // A known device may come back after a restart.
  RestartController(options);
  ConnectWith(RegisterOf("host-1"), &st);
  EXPECT_TRUE(st.ok()) << st;
}

TEST_F(FleetProtocolTest, ARunStartedAfterItsLeaseExpiredIsCancelledThere) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  clock_.Advance(absl::Seconds(16));
  Deliver("host-0", Heartbeat(0));
  fleet_->CheckLiveness();
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  // The slow agent starts it anyway: it is told to stop, and the run is
  // not marked running for it.
  SendStarted("host-0", runs[0]);
  EXPECT_NE(State(runs[0]), v1::RUN_STATE_RUNNING);
  EXPECT_GE(conn->CancelledRunIds().size(), 1u);
}

// A run the store holds as running on a connected agent that does not hold
// it (e.g. releasing it failed while the database was locked) does not
// stay running forever.
TEST_F(FleetProtocolTest, ARunNoSessionHoldsIsReleasedAfterGrace) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  v1::DeviceCapabilities none = HostCaps(4);
  none.clear_models();
  auto conn = Connect("host-0", none);  // serves nothing: gets no run
  ASSERT_TRUE(store_->TransitionRun(runs[0], v1::RUN_STATE_LEASED, "host-0",
                                    "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(runs[0], v1::RUN_STATE_RUNNING, "host-0",
                                    "", clock_.Now()).ok());
  fleet_->CheckLiveness();
  clock_.Advance(absl::Seconds(12));
  Deliver("host-0", Heartbeat(0));
  fleet_->CheckLiveness();
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  clock_.Advance(absl::Seconds(20));
  Deliver("host-0", Heartbeat(0));
  fleet_->CheckLiveness();
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("agent host-0 did not report the run")));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);  // retried
}

std::string DatabaseIdSentTo(const FakeAgentConnection& conn) {
  for (const v1::ControllerMessage& m : conn.sent()) {
    if (m.has_registered()) return m.registered().database_id();
  }
  return "";
}

TEST_F(FleetProtocolTest, RegisteredNamesTheDatabaseTheSameAfterARestart) {
  auto conn = Connect("host-0");
  const std::string id = DatabaseIdSentTo(*conn);
  EXPECT_EQ(id.size(), 32u);
  RestartController();
  auto again = Connect("host-0");
  EXPECT_EQ(DatabaseIdSentTo(*again), id);
}

}  // namespace
}  // namespace powersweep
