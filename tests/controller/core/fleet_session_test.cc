// Fleet sessions: register, replace, disconnect, liveness, device views.
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

using FleetSessionTest = FleetTest;

TEST_F(FleetSessionTest, RegisterSendsRegisteredAndStoresTheDevice) {
  auto conn = Connect("host-0", HostCaps(4));

  std::vector<v1::ControllerMessage> sent = conn->sent();
  ASSERT_EQ(sent.size(), 1u);
  ASSERT_TRUE(sent[0].has_registered());
  EXPECT_EQ(sent[0].registered().device_id(), "host-0");
  EXPECT_DOUBLE_EQ(sent[0].registered().heartbeat_interval_s(), 2.0);

  auto devices = fleet_->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].identity().device_id(), "host-0");
  EXPECT_EQ((*devices)[0].identity().device_class(), "host");
  EXPECT_EQ((*devices)[0].capabilities().cpu_cores(), 4);
  EXPECT_TRUE((*devices)[0].connected());
  EXPECT_EQ((*devices)[0].current_run_id(), 0);
}

TEST_F(FleetSessionTest, RegisterWithoutDeviceIdOrClassIsRejected) {
  auto conn = std::make_shared<FakeAgentConnection>();
  v1::Register no_id;
  no_id.mutable_identity()->set_device_class("host");
  absl::Status st = fleet_->Register(no_id, conn);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("device_id"));

  v1::Register no_class;
  no_class.mutable_identity()->set_device_id("host-0");
  st = fleet_->Register(no_class, conn);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("device_class"));

  EXPECT_THAT(conn->sent(), IsEmpty());
  EXPECT_THAT(fleet_->ConnectedDevices(), IsEmpty());
  auto devices = fleet_->ListDevices();
  ASSERT_TRUE(devices.ok());
  EXPECT_THAT(*devices, IsEmpty());
}

TEST_F(FleetSessionTest, RegisterAgainReplacesAndClosesTheOlderSession) {
  auto first = Connect("host-0");
  auto second = Connect("host-0");
  EXPECT_TRUE(first->closed());
  EXPECT_FALSE(second->closed());
  ASSERT_EQ(fleet_->ConnectedDevices().size(), 1u);
}

TEST_F(FleetSessionTest, RegisterWithActiveRunKeepsTheRun) {
  auto runs = AddSweep({HostRun()});
  auto first = Connect("host-0");
  ASSERT_THAT(first->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);

  // The agent reconnects while the workload keeps running.
  auto second = Connect("host-0", HostCaps(4), "host", runs[0]);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  EXPECT_THAT(second->AssignedRunIds(), IsEmpty());
  EXPECT_THAT(second->CancelledRunIds(), IsEmpty());

  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], 2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_THAT(second->Acks(), ElementsAre(std::make_pair(runs[0], int64_t{2}),
                                          std::make_pair(runs[0], int64_t{0})));
}

TEST_F(FleetSessionTest, RegisterWithoutTheActiveRunFailsItAndRetries) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  Connect("host-0");
  SendStarted("host-0", runs[0]);

  // The agent restarted: it no longer knows the run.
  auto second = Connect("host-0");
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre("agent host-0 came back without the run (it "
                          "restarted and its spool had none of it)"));
  // Re-queued as attempt 2 and handed to the (now idle) agent again.
  v1::RunStatus run = Run(runs[0]);
  EXPECT_EQ(run.state(), v1::RUN_STATE_LEASED);
  EXPECT_EQ(run.spec().attempt(), 2);
  ASSERT_EQ(second->Assigned().size(), 1u);
  EXPECT_EQ(second->Assigned()[0].attempt(), 2);
}

TEST_F(FleetSessionTest, ReportedRunTheControllerGaveUpOnIsCancelled) {
  auto runs = AddSweep({HostRun()});
  auto first = Connect("host-0");
  SendStarted("host-0", runs[0]);
  fleet_->Disconnect("host-0", first.get());
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);

  auto second = Connect("host-0", HostCaps(4), "host", runs[0]);
  EXPECT_THAT(second->CancelledRunIds(), ElementsAre(runs[0]));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
}

TEST_F(FleetSessionTest, DisconnectMidRunFailsTheRunAndAnotherAgentRetries) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  ASSERT_THAT(a->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("host-a", runs[0]);

  fleet_->Disconnect("host-a", a.get());

  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre("agent host-a disconnected during the run"));
  ASSERT_EQ(b->Assigned().size(), 1u);
  EXPECT_EQ(b->Assigned()[0].run_id(), runs[0]);
  EXPECT_EQ(b->Assigned()[0].attempt(), 2);
  v1::RunStatus run = Run(runs[0]);
  EXPECT_EQ(run.state(), v1::RUN_STATE_LEASED);
  EXPECT_EQ(run.device_id(), "host-b");
  EXPECT_EQ(fleet_->ConnectedDevices().size(), 1u);
}

TEST_F(FleetSessionTest, DisconnectMidRunWithoutRetriesLeavesTheRunFailed) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/0);
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  SendStarted("host-a", runs[0]);

  fleet_->Disconnect("host-a", a.get());

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_EQ(Run(runs[0]).reason(), "agent host-a disconnected during the run");
  EXPECT_THAT(b->Assigned(), IsEmpty());
}

TEST_F(FleetSessionTest, DisconnectBeforeTheRunStartedRequeuesWithoutAttempt) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/0);
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_LEASED);

  fleet_->Disconnect("host-a", a.get());

  ASSERT_EQ(b->Assigned().size(), 1u);
  EXPECT_EQ(b->Assigned()[0].attempt(), 1);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_PENDING),
              ElementsAre(HasSubstr("agent host-a disconnected before the run "
                                    "started")));
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED), IsEmpty());
}

TEST_F(FleetSessionTest, StaleDisconnectOfAReplacedSessionDoesNothing) {
  auto runs = AddSweep({HostRun()});
  auto old_session = Connect("host-0");
  SendStarted("host-0", runs[0]);
  auto new_session = Connect("host-0", HostCaps(4), "host", runs[0]);

  fleet_->Disconnect("host-0", old_session.get());

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED), IsEmpty());
  std::vector<v1::DeviceStatus> connected = fleet_->ConnectedDevices();
  ASSERT_EQ(connected.size(), 1u);
  EXPECT_EQ(connected[0].current_run_id(), runs[0]);
}

TEST_F(FleetSessionTest, SilentAgentIsClosedAndItsRunFails) {
  auto runs = AddSweep({HostRun()});
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  SendStarted("host-a", runs[0]);

  clock_.Advance(absl::Seconds(5));  // < 3 intervals of 2 s
  SendHeartbeat("host-b");
  fleet_->CheckLiveness();
  EXPECT_FALSE(a->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);

  clock_.Advance(absl::Seconds(2));  // host-a silent 7 s, host-b 2 s
  fleet_->CheckLiveness();
  EXPECT_TRUE(a->closed());
  EXPECT_FALSE(b->closed());
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(Run(runs[0]).reason(),
              HasSubstr("agent host-a disconnected (silent for 6s)"));
  std::vector<v1::DeviceStatus> connected = fleet_->ConnectedDevices();
  ASSERT_EQ(connected.size(), 1u);
  EXPECT_EQ(connected[0].identity().device_id(), "host-b");
}

TEST_F(FleetSessionTest, ListDevicesShowsRunsAndDisconnectedDevices) {
  auto runs = AddSweep({HostRun()});
  auto a = Connect("host-a");
  auto b = Connect("host-b");
  fleet_->Disconnect("host-b", b.get());

  auto devices = fleet_->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 2u);
  for (const v1::DeviceStatus& d : *devices) {
    if (d.identity().device_id() == "host-a") {
      EXPECT_TRUE(d.connected());
      EXPECT_EQ(d.current_run_id(), runs[0]);
    } else {
      EXPECT_EQ(d.identity().device_id(), "host-b");
      EXPECT_FALSE(d.connected());
      EXPECT_EQ(d.current_run_id(), 0);
    }
  }
}

}  // namespace
}  // namespace powersweep
