// Lab operations on the Fleet: drained devices take no new runs (their
// current run finishes), forgotten devices leave the listings until their
// agent registers again, unhealthy devices get no runs until a heartbeat
// passes, and a rerun re-queues a sweep's failed and cancelled runs as a
// new attempt.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/sqlite_db.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class FleetLabOpsTest : public FleetTest {
 protected:
  absl::StatusOr<std::string> Set(const std::string& id,
                                  v1::DeviceAction action) {
    return fleet_->SetDeviceState(id, action);
  }
  // The device as Fleet::ListDevices shows it; nullopt when not listed.
  std::optional<v1::DeviceStatus> Listed(const std::string& id) {
    auto devices = fleet_->ListDevices();
    EXPECT_TRUE(devices.ok()) << devices.status();
    for (const v1::DeviceStatus& d :
         devices.value_or(std::vector<v1::DeviceStatus>())) {
      if (d.identity().device_id() == id) return d;
    }
    return std::nullopt;
  }
  static v1::DeviceHealth Health(bool healthy, const std::string& reason,
                                 int64_t at_ms = 1000) {
    v1::DeviceHealth h;
    h.set_healthy(healthy);
    h.set_reason(reason);
    h.set_checked_unix_ms(at_ms);
    return h;
  }
  void SendHealth(const std::string& id, const v1::DeviceHealth& health) {
    v1::AgentMessage msg;
    *msg.mutable_heartbeat()->mutable_health() = health;
    Deliver(id, msg);
  }
  void Disconnect(const std::string& id) {
    fleet_->Disconnect(id, Session(id).get());
  }
};

TEST_F(FleetLabOpsTest, ADrainedDeviceFinishesItsRunAndTakesNoOther) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun(), HostRun()});
  auto a = Connect("host-0");
  ASSERT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("host-0", runs[0]);

  auto drained = Set("host-0", v1::DEVICE_ACTION_DRAIN);
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(*drained, absl::StrCat("device host-0 drained: it takes no new "
                                   "runs; its run ",
                                   runs[0], " finishes normally"));
  SendFinished("host-0", runs[0], 0);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  fleet_->Dispatch();
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  EXPECT_TRUE(Listed("host-0")->drained());

  // Another device takes the runs meanwhile.
  auto b = Connect("host-1");
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[1]));

  auto undrained = Set("host-0", v1::DEVICE_ACTION_UNDRAIN);
  ASSERT_TRUE(undrained.ok()) << undrained.status();
  EXPECT_EQ(*undrained, "device host-0 undrained: it takes runs again");
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0], runs[2]));
  EXPECT_FALSE(Listed("host-0")->drained());
}

// A disconnected agent's device shows when it went and when it was last
// heard (its last message), not the time it registered; reconnected, none.
TEST_F(FleetLabOpsTest, DevicesShowWhenADeviceDisconnected) {
  Connect("host-0");
  const int64_t registered = Listed("host-0")->last_seen_unix_ms();
  clock_.Advance(absl::Seconds(30));
  SendHealth("host-0", Health(true, "", 1000));  // heard 30 s later
  clock_.Advance(absl::Seconds(5));
  Disconnect("host-0");
  std::optional<v1::DeviceStatus> d = Listed("host-0");
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->connected());
  EXPECT_EQ(d->last_seen_unix_ms(), registered + 30'000);
  EXPECT_EQ(d->disconnected_unix_ms(), registered + 35'000);
  Connect("host-0");
  EXPECT_EQ(Listed("host-0")->disconnected_unix_ms(), 0);
}

TEST_F(FleetLabOpsTest, DrainingIsKeptAcrossAControllerRestartAndReconnects) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0);
  Disconnect("host-0");
  ASSERT_TRUE(Set("host-0", v1::DEVICE_ACTION_DRAIN).ok());

  RestartController();
  AddSweep({HostRun()});
  auto again = Connect("host-0");
  EXPECT_THAT(again->AssignedRunIds(), IsEmpty());
  std::optional<v1::DeviceStatus> d = Listed("host-0");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->drained());
  EXPECT_TRUE(d->connected());
}

TEST_F(FleetLabOpsTest, ForgettingAConnectedDeviceNeedsItDrainedOrStopped) {
  Connect("host-0");
  auto refused = Set("host-0", v1::DEVICE_ACTION_FORGET);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            "device host-0 is connected; stop its agent or drain it first");
  EXPECT_TRUE(Listed("host-0").has_value());

  ASSERT_TRUE(Set("host-0", v1::DEVICE_ACTION_DRAIN).ok());
  auto forgotten = Set("host-0", v1::DEVICE_ACTION_FORGET);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_FALSE(Listed("host-0").has_value());
}

TEST_F(FleetLabOpsTest, AForgottenDeviceIsUnlistedKeepsItsRunsAndComesBack) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0);
  Connect("host-1");
  Disconnect("host-0");

  auto forgotten = Set("host-0", v1::DEVICE_ACTION_FORGET);
  ASSERT_TRUE(forgotten.ok()) << forgotten.status();
  EXPECT_THAT(*forgotten, HasSubstr("device host-0 forgotten"));
  EXPECT_FALSE(Listed("host-0").has_value());
  EXPECT_TRUE(Listed("host-1").has_value());
  EXPECT_EQ(Run(runs[0]).device_id(), "host-0");
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  // Gone for every operation until it comes back.
  auto drain = Set("host-0", v1::DEVICE_ACTION_DRAIN);
  EXPECT_EQ(drain.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(drain.status().message(), HasSubstr("'host-0'"));

  Connect("host-0");
  std::optional<v1::DeviceStatus> back = Listed("host-0");
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->connected());
  EXPECT_FALSE(back->forgotten());
}

TEST_F(FleetLabOpsTest, UnknownDevicesAndActionsAreRefusedNamingThem) {
  Connect("host-0");
  auto unknown = Set("nx-7", v1::DEVICE_ACTION_DRAIN);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown device 'nx-7'"));
  EXPECT_EQ(Set("", v1::DEVICE_ACTION_DRAIN).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto no_action = Set("host-0", v1::DEVICE_ACTION_UNSPECIFIED);
  EXPECT_EQ(no_action.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_action.status().message(), HasSubstr("action"));
}

TEST_F(FleetLabOpsTest, AnUnhealthyDeviceGetsNoRunsUntilAHeartbeatPasses) {
  auto runs = AddSweep({HostRun(), HostRun()});
  v1::Register reg = RegisterOf("host-0");
  *reg.mutable_health() = Health(false, "board temperature 101.0 C");
  absl::Status st;
  auto conn = ConnectWith(reg, &st);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_THAT(conn->AssignedRunIds(), IsEmpty());
  fleet_->Dispatch();
  EXPECT_THAT(conn->AssignedRunIds(), IsEmpty());
  std::optional<v1::DeviceStatus> d = Listed("host-0");
  EXPECT_FALSE(d->health().healthy());
  EXPECT_EQ(d->health().reason(), "board temperature 101.0 C");

  // Still failing: nothing changes.
  SendHealth("host-0", Health(false, "board temperature 101.0 C", 2000));
  EXPECT_THAT(conn->AssignedRunIds(), IsEmpty());
  EXPECT_EQ(Listed("host-0")->health().checked_unix_ms(), 2000);

  SendHealth("host-0", Health(true, "", 3000));
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
  // The store holds the change (a restarted controller lists it).
  auto stored = store_->ListDevices();
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE((*stored)[0].health().healthy());
  EXPECT_EQ((*stored)[0].health().checked_unix_ms(), 3000);
}

TEST_F(FleetLabOpsTest, AnAssignmentRejectedAsUnhealthyUsesNoAttempt) {
  auto runs = AddSweep({HostRun(), HostRun()});
  auto a = Connect("host-0");
  ASSERT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  v1::AgentMessage reply;
  reply.mutable_assign_reply()->set_run_id(runs[0]);
  reply.mutable_assign_reply()->set_attempt(1);
  reply.mutable_assign_reply()->set_reason(
      "unhealthy: the power rails read 0 mW");
  *reply.mutable_assign_reply()->mutable_health() =
      Health(false, "the power rails read 0 mW");
  Deliver("host-0", reply);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 1);
  EXPECT_FALSE(Listed("host-0")->health().healthy());
  fleet_->Dispatch();
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  auto b = Connect("host-1");
  EXPECT_THAT(b->AssignedRunIds(), ElementsAre(runs[0]));
  // Its next heartbeat passes: it takes runs again.
  SendHealth("host-0", Health(true, "", 2000));
  EXPECT_THAT(a->AssignedRunIds(), ElementsAre(runs[0], runs[1]));
}

TEST_F(FleetLabOpsTest, RerunRequeuesFailedAndCancelledRunsAsTheNextAttempt) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun(), HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0);  // done
  SendStarted("host-0", runs[1]);
  SendBatch("host-0", runs[1], 1);
  SendFinished("host-0", runs[1], 1, /*ok=*/false, "workload exited 1");
  ASSERT_EQ(State(runs[1]), v1::RUN_STATE_FAILED);
  ASSERT_TRUE(fleet_->CancelRuns(sweep, runs[3], "not now").ok());
  Disconnect("host-0");  // runs[2] goes back to pending

  auto failed_only = fleet_->Rerun(sweep, /*failed=*/true, /*cancelled=*/false);
  ASSERT_TRUE(failed_only.ok()) << failed_only.status();
  EXPECT_EQ(failed_only->requeued(), 1);
  EXPECT_EQ(State(runs[1]), v1::RUN_STATE_PENDING);
  EXPECT_EQ(Run(runs[1]).spec().attempt(), 2);
  EXPECT_EQ(State(runs[3]), v1::RUN_STATE_CANCELLED);
  EXPECT_THAT(ReasonsFor(runs[1], v1::RUN_STATE_PENDING),
              ElementsAre("rerun by the user after it ended failed: "
                          "workload exited 1"));

  auto both = fleet_->Rerun(sweep, false, false);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->requeued(), 1);
  EXPECT_EQ(Run(runs[3]).spec().attempt(), 2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 1);

  // They are dispatched; the failed attempt's batch is still stored.
  auto conn = Connect("host-1");
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[1]));
  EXPECT_EQ(Run(runs[1]).spec().attempt(), 2);
  EXPECT_EQ(fleet_->Rerun(sweep + 100, true, true).status().code(),
            absl::StatusCode::kNotFound);
}

// Twin runs that timed out fail again with the same timeout: a rerun may
// give them another, which the agent receives with the assignment.
TEST_F(FleetLabOpsTest, RerunMayGiveTheRunsANewTimeout) {
  auto runs = AddSweep({HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0, /*ok=*/false, "timed out after 600 s");
  Disconnect("host-0");
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_EQ(fleet_->Rerun(sweep, true, false, -5).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto rerun = fleet_->Rerun(sweep, true, false, 1800);
  ASSERT_TRUE(rerun.ok()) << rerun.status();
  EXPECT_EQ(rerun->requeued(), 1);
  EXPECT_DOUBLE_EQ(Run(runs[0]).spec().timeout_s(), 1800);
  auto conn = Connect("host-1");
  ASSERT_EQ(conn->Assigned().size(), 1u);
  EXPECT_DOUBLE_EQ(conn->Assigned()[0].timeout_s(), 1800);
}

TEST_F(FleetLabOpsTest, ARerunTimeoutTheAgentWouldRefuseIsRefusedAtOnce) {
  auto runs = AddSweep({HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  for (double bad : {1e308, 604801.0, -1.0}) {
    auto r = fleet_->Rerun(sweep, true, true, bad);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("timeout_s"));
  }
}

TEST_F(FleetLabOpsTest, ACancelledRunItsAgentIsStillStoppingIsNotRerunYet) {
  auto runs = AddSweep({HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  ASSERT_TRUE(fleet_->CancelRuns(sweep, 0, "stop").ok());

  auto early = fleet_->Rerun(sweep, false, true);
  ASSERT_TRUE(early.ok()) << early.status();
  EXPECT_EQ(early->requeued(), 0);
  ASSERT_EQ(early->skipped_size(), 1);
  EXPECT_THAT(early->skipped(0), HasSubstr("still stopping"));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_CANCELLED);

  SendFinished("host-0", runs[0], 0, /*ok=*/false, "cancelled: stop");
  auto later = fleet_->Rerun(sweep, false, true);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(later->requeued(), 1);
  EXPECT_THAT(Session("host-0")->AssignedRunIds(),
              ElementsAre(runs[0], runs[0]));
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 2);
}

TEST_F(FleetLabOpsTest, ARunTheStoreRefusesDoesNotStopTheRerunOfTheOthers) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun()});
  const int64_t sweep = Run(runs[0]).spec().sweep_id();
  ASSERT_TRUE(fleet_->CancelRuns(sweep, 0, "later").ok());
  {
    auto db = SqliteDb::Open(dir_ + "/fleet.db", /*read_only=*/false);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec(absl::StrCat(
                                "CREATE TRIGGER refuse BEFORE UPDATE OF state "
                                "ON runs WHEN OLD.run_id = ",
                                runs[1],
                                " AND NEW.state = 'pending' BEGIN SELECT "
                                "RAISE(ABORT, 'refused by the test'); END"))
                    .ok());
  }
  auto rerun = fleet_->Rerun(sweep, true, true);
  ASSERT_FALSE(rerun.ok());
  EXPECT_THAT(rerun.status().message(),
              HasSubstr(absl::StrCat("2 runs of sweep ", sweep,
                                     " re-queued; 1 could not be: run ",
                                     runs[1], ": ")));
  EXPECT_THAT(rerun.status().message(), HasSubstr("refused by the test"));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_EQ(State(runs[1]), v1::RUN_STATE_CANCELLED);
  EXPECT_EQ(State(runs[2]), v1::RUN_STATE_PENDING);
  auto conn = Connect("host-0");
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
}

TEST_F(FleetLabOpsTest, UnfinishedSweepsAreNamedWithTheirPendingAndInFlightRuns) {
  auto first = AddSweep({HostRun(), HostRun(), HostRun()});
  Connect("host-0");
  SendStarted("host-0", first[0]);
  Connect("host-1");  // leased first[1], not started
  auto second = AddSweep({HostRun()});
  auto finished = AddSweep({HostRun()});
  ASSERT_TRUE(
      fleet_->CancelRuns(Run(finished[0]).spec().sweep_id(), 0, "x").ok());

  RestartController();
  EXPECT_THAT(
      fleet_->LogUnfinishedSweeps(),
      ElementsAre(absl::StrCat("resuming sweep ", Run(first[0]).spec().sweep_id(),
                               " 'fleet-test': 1 pending, 2 in flight (their "
                               "agents have 30s to reconnect)"),
                  absl::StrCat("resuming sweep ", Run(second[0]).spec().sweep_id(),
                               " 'fleet-test': 1 pending, 0 in flight")));
}

}  // namespace
}  // namespace powersweep
