// Fleet ingest: run events and data batches, acknowledged after commit.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using FleetIngestTest = FleetTest;

std::pair<int64_t, int64_t> AckOf(int64_t run_id, int64_t seq) {
  return {run_id, seq};
}

TEST_F(FleetIngestTest, RunStartedMarksTheRunRunningAndStoresTheMode) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendStarted("host-0", runs[0]);  // a resend after a reconnect

  v1::RunStatus run = Run(runs[0]);
  EXPECT_EQ(run.state(), v1::RUN_STATE_RUNNING);
  EXPECT_GT(run.started_unix_ms(), 0);
  EXPECT_EQ(ReasonsFor(runs[0], v1::RUN_STATE_RUNNING).size(), 1u);
}

TEST_F(FleetIngestTest, BatchIsAcknowledgedAfterItIsStored) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/3);

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1)));
  auto stored = store_->GetMinibatches(runs[0]);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->size(), 3u);
}

TEST_F(FleetIngestTest, DuplicateBatchIsStoredOnceButAcknowledgedAgain) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/2);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/2);

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1), AckOf(runs[0], 1)));
  auto stored = store_->GetMinibatches(runs[0]);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->size(), 2u);
  EXPECT_EQ(*store_->CountBatches(runs[0]), 1);
}

TEST_F(FleetIngestTest, BatchOfARunTheAgentDoesNotHoldIsAckedNotStored) {
  auto runs = AddSweep({HostRun(), HostRun()});
  auto conn = Connect("host-0");
  ASSERT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
  SendBatch("host-0", runs[1], 1);

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[1], 1)));
  EXPECT_EQ(*store_->CountBatches(runs[1]), 0);
}

TEST_F(FleetIngestTest, FinishBeforeAllBatchesArrivedWaitsForThem) {
  auto runs = AddSweep({HostRun(), HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  SendBatch("host-0", runs[0], 3);  // batch 2 is still in the agent's spool
  SendFinished("host-0", runs[0], /*batches=*/3);

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1), AckOf(runs[0], 3)));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));

  // The agent resends what was not acknowledged.
  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], /*batches=*/3);

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1), AckOf(runs[0], 3),
                                        AckOf(runs[0], 2), AckOf(runs[0], 0)));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  auto result = store_->GetRunResult(runs[0]);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->ok());
  EXPECT_DOUBLE_EQ(result->duration_s(), 1.5);
  EXPECT_EQ(store_->GetMinibatches(runs[0])->size(), 6u);
  // The agent is idle again and gets the next run.
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0], runs[1]));
  EXPECT_EQ(Run(runs[1]).device_id(), "host-0");
}

TEST_F(FleetIngestTest, RepeatedRunFinishedIsAcknowledgedAgainOnly) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  SendFinished("host-0", runs[0], 1);
  SendFinished("host-0", runs[0], 1);  // the first ack was lost

  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1), AckOf(runs[0], 0),
                                        AckOf(runs[0], 0)));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_EQ(ReasonsFor(runs[0], v1::RUN_STATE_DONE).size(), 1u);
}

TEST_F(FleetIngestTest, FailedRunIsRetriedWhileAttemptsRemain) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0, /*ok=*/false, "exit code 1: bad data");

  // Recorded as failed, then re-queued as attempt 2 and assigned again.
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre("exit code 1: bad data"));
  std::vector<v1::RunSpec> assigned = conn->Assigned();
  ASSERT_EQ(assigned.size(), 2u);
  EXPECT_EQ(assigned[1].run_id(), runs[0]);
  EXPECT_EQ(assigned[1].attempt(), 2);

  SendStarted("host-0", runs[0]);
  SendFinished("host-0", runs[0], 0, /*ok=*/false, "exit code 1: bad data");
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 2);
  EXPECT_EQ(conn->Assigned().size(), 2u) << "no third attempt";
  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 0), AckOf(runs[0], 0)));
}

v1::RunResult EnergyResult(int64_t run_id, double span_s, double energy_j) {
  v1::RunResult r;
  r.set_run_id(run_id);
  r.set_ok(true);
  r.set_duration_s(span_s);
  r.set_energy_span_s(span_s);
  r.set_energy_j(energy_j);
  return r;
}

TEST_F(FleetIngestTest, AFinishedRunStoresItsIncrementalEnergyOverTheBaseload) {
  v1::RunSpec idle = HostRun();
  idle.mutable_workload()->set_task(v1::TASK_BASELOAD);
  auto runs = AddSweep({HostRun(), idle, HostRun()});
  auto conn = Connect("host-0");
  // No baseload yet: the first run's result carries none.
  SendStarted("host-0", runs[0]);
  SendFinishedResult("host-0", EnergyResult(runs[0], 20, 100), 0);
  SendStarted("host-0", runs[1]);
  v1::RunResult base = EnergyResult(runs[1], 10, 30);
  base.set_baseload_power_mw(3000);
  SendFinishedResult("host-0", base, 0);
  SendStarted("host-0", runs[2]);
  SendFinishedResult("host-0", EnergyResult(runs[2], 20, 100), 0);
  ASSERT_EQ(State(runs[2]), v1::RUN_STATE_DONE);

  auto before = store_->GetRunResult(runs[0]);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->baseload_run_id(), 0);
  EXPECT_EQ(before->incremental_energy_j(), 0);
  auto after = store_->GetRunResult(runs[2]);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->baseload_run_id(), runs[1]);
  EXPECT_DOUBLE_EQ(after->baseload_power_mw(), 3000);
  EXPECT_DOUBLE_EQ(after->incremental_energy_j(), 100 - 3.0 * 20);
}

TEST_F(FleetIngestTest, MessagesOfAnUnknownDeviceAreNotAcknowledged) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendBatch("ghost", runs[0], 1);
  EXPECT_THAT(conn->Acks(), IsEmpty());
  EXPECT_EQ(*store_->CountBatches(runs[0]), 0);
}

}  // namespace
}  // namespace powersweep
