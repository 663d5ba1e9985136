// What an agent sends that cannot be stored: a NaN or out-of-range number,
// one sequence number with two contents, sequence numbers that do not add
// up to the run's count. Each run fails at once with a reason that names
// the field, the agent is told (CancelRun), nothing of it is stored, and
// the run never waits forever.
#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FleetHostileDataTest : public FleetTest {
 protected:
  void DeliverBatch(const std::string& device_id, const v1::DataBatch& batch) {
    v1::AgentMessage msg;
    *msg.mutable_batch() = batch;
    Deliver(device_id, msg);
  }
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

v1::DataBatch OneRecord(int64_t run_id, int64_t seq) {
  v1::DataBatch b;
  b.set_run_id(run_id);
  b.set_seq(seq);
  v1::MinibatchRecord* r = b.add_minibatches();
  r->set_index(seq - 1);
  r->set_t_start_s(0.1);
  r->set_stall_s(0.01);
  r->set_compute_s(0.05);
  r->set_e2e_s(0.07);
  r->set_samples(32);
  r->set_loss(2.0);
  return b;
}

v1::RunResult GoodResult(int64_t run_id) {
  v1::RunResult r;
  r.set_run_id(run_id);
  r.set_ok(true);
  r.set_duration_s(1.5);
  r.set_energy_j(12.0);
  return r;
}

TEST_F(FleetHostileDataTest, ABatchWithANaNFailsTheRunNamingTheField) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  v1::DataBatch batch = OneRecord(runs[0], 1);
  batch.mutable_minibatches(0)->set_compute_s(kNaN);
  DeliverBatch("host-0", batch);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("minibatches[0].compute_s is NaN")));
  EXPECT_EQ(*store_->CountBatches(runs[0]), 0);
  // Told, and acknowledged so that it does not send the batch forever.
  EXPECT_THAT(conn->CancelledRunIds(), ElementsAre(runs[0]));
  EXPECT_THAT(conn->Acks(), ElementsAre(std::make_pair(runs[0], int64_t{1})));
}

// gpt2_small's generation latencies are seconds like the minibatch's
// times: a negative one fails the run naming the field.
TEST_F(FleetHostileDataTest, ANegativeTimeToFirstTokenFailsTheRun) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  v1::DataBatch batch = OneRecord(runs[0], 1);
  batch.mutable_minibatches(0)->set_ttft_s(-0.5);
  DeliverBatch("host-0", batch);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("minibatches[0].ttft_s is -0.5 s")));
}

TEST_F(FleetHostileDataTest, AResultWithANaNOrAnAbsurdEnergyFailsTheRun) {
  for (double energy : {kNaN, -5.0, 1e308}) {
    SCOPED_TRACE(energy);
    auto runs = AddSweep({HostRun()});
    Connect("host-0");
    SendStarted("host-0", runs[0]);
    SendBatch("host-0", runs[0], 1);
    v1::RunResult result = GoodResult(runs[0]);
    result.set_energy_j(energy);
    SendFinishedResult("host-0", result, 1);

    EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
    EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
                ElementsAre(HasSubstr("result.energy_j is")));
    EXPECT_FALSE(store_->GetRunResult(runs[0]).ok() &&
                 store_->GetRunResult(runs[0])->energy_j() == energy);
    // The agent reports the cancelled run ended; it is free again.
    SendFinishedResult("host-0", GoodResult(runs[0]), 1);
  }
}

TEST_F(FleetHostileDataTest, SequenceNumbersBeyondTheRunsCountAreNotAComplete) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 5);
  SendBatch("host-0", runs[0], 6);
  SendFinishedResult("host-0", GoodResult(runs[0]), /*batches=*/2);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("reported 2 batches for the run, but "
                                    "sent batch 6")));
}

TEST_F(FleetHostileDataTest, AGapIsAskedForNotTakenAsComplete) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  SendBatch("host-0", runs[0], 3);
  SendBatch("host-0", runs[0], 3);
  SendFinishedResult("host-0", GoodResult(runs[0]), /*batches=*/3);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_RUNNING);
  std::vector<int64_t> asked;
  for (const v1::ControllerMessage& m : conn->sent()) {
    if (m.has_resend()) asked.assign(m.resend().seqs().begin(), m.resend().seqs().end());
  }
  EXPECT_THAT(asked, ElementsAre(2));
}

TEST_F(FleetHostileDataTest, OneSequenceNumberWithTwoContentsKeepsTheFirstAndFails) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/2);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/5);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_FAILED),
              ElementsAre(HasSubstr("sent batch 1 again with other contents")));
  EXPECT_EQ(store_->GetMinibatches(runs[0])->size(), 2u);
}

TEST_F(FleetHostileDataTest, ARejectedRunIsRetriedWhenTheSweepAllowsIt) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  v1::DataBatch batch = OneRecord(runs[0], 1);
  batch.mutable_minibatches(0)->set_e2e_s(-1);
  DeliverBatch("host-0", batch);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_PENDING);
  EXPECT_EQ(Run(runs[0]).spec().attempt(), 2);
  // No new run for the agent until it says the cancelled one ended.
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0]));
  SendFinishedResult("host-0", GoodResult(runs[0]), 1);
  EXPECT_THAT(conn->AssignedRunIds(), ElementsAre(runs[0], runs[0]));
}

}  // namespace
}  // namespace powersweep

namespace powersweep {
namespace {

using FleetLateResultTest = FleetTest;

TEST_F(FleetLateResultTest, ASpooledResultCompletesARunFailedForALostAgent) {
  auto runs = AddSweep({HostRun()});
  auto first = Connect("host-0");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1);
  // The controller loses the agent mid-run (max_retries 0): failed.
  fleet_->Disconnect("host-0", first.get());
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);

  // The agent comes back and replays its spool: the rest of the data and
  // the finished result of the same attempt.
  auto again = Connect("host-0");
  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], /*batches=*/2);

  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_THAT(ReasonsFor(runs[0], v1::RUN_STATE_DONE),
              ElementsAre(HasSubstr("spooled result after the controller had "
                                    "failed it (agent host-0 disconnected")));
  EXPECT_EQ(*store_->CountBatches(runs[0]), 2);
  EXPECT_TRUE(store_->GetRunResult(runs[0]).ok());
}

TEST_F(FleetLateResultTest, ALateResultWithAMissingBatchAsksForIt) {
  auto runs = AddSweep({HostRun()});
  auto first = Connect("host-0");
  SendStarted("host-0", runs[0]);
  fleet_->Disconnect("host-0", first.get());
  auto again = Connect("host-0");
  SendBatch("host-0", runs[0], 2);
  SendFinished("host-0", runs[0], /*batches=*/2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  std::vector<int64_t> asked;
  for (const v1::ControllerMessage& m : again->sent()) {
    if (m.has_resend()) {
      asked.assign(m.resend().seqs().begin(), m.resend().seqs().end());
    }
  }
  EXPECT_THAT(asked, ElementsAre(1));
  SendBatch("host-0", runs[0], 1);
  SendFinished("host-0", runs[0], /*batches=*/2);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
}

TEST_F(FleetLateResultTest, ARunFailedForRefusedDataIsNotRevived) {
  auto runs = AddSweep({HostRun()});
  Connect("host-0");
  SendStarted("host-0", runs[0]);
  v1::AgentMessage bad;
  *bad.mutable_batch() = OneRecord(runs[0], 1);
  bad.mutable_batch()->mutable_minibatches(0)->set_stall_s(kNaN);
  Deliver("host-0", bad);
  ASSERT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  SendBatch("host-0", runs[0], 1);
  SendFinished("host-0", runs[0], /*batches=*/1);
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_FAILED);
  EXPECT_EQ(*store_->CountBatches(runs[0]), 0);
}

}  // namespace
}  // namespace powersweep
