// Fleet and attempts: data of an attempt the controller gave up on is
// acknowledged (so the agent's spool drains) but never stored as the data of
// the run's newer attempt; every attempt's stored records are kept.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

using FleetAttemptTest = FleetTest;

std::pair<int64_t, int64_t> AckOf(int64_t run_id, int64_t seq) {
  return {run_id, seq};
}

// A batch of `minibatches` records (indices numbered from the seq) of one
// attempt of a run, as an agent sends it.
v1::AgentMessage BatchOf(int64_t run_id, int32_t attempt, int64_t seq,
                         int minibatches) {
  v1::AgentMessage msg;
  v1::DataBatch* batch = msg.mutable_batch();
  batch->set_run_id(run_id);
  batch->set_attempt(attempt);
  batch->set_seq(seq);
  for (int i = 0; i < minibatches; ++i) {
    v1::MinibatchRecord* r = batch->add_minibatches();
    r->set_index((seq - 1) * minibatches + i);
    r->set_e2e_s(0.07);
    r->set_samples(32);
  }
  return msg;
}

v1::AgentMessage FinishedOf(int64_t run_id, int32_t attempt, int64_t batches,
                            bool ok, const std::string& reason = "") {
  v1::AgentMessage msg;
  v1::RunResult* result = msg.mutable_run_finished()->mutable_result();
  result->set_run_id(run_id);
  result->set_ok(ok);
  result->set_reason(reason);
  result->set_exit_code(ok ? 0 : 1);
  msg.mutable_run_finished()->set_batches(batches);
  msg.mutable_run_finished()->set_attempt(attempt);
  return msg;
}

TEST_F(FleetAttemptTest, StaleAttemptDataIsAckedButNotStoredAsTheNewAttempts) {
  auto runs = AddSweep({HostRun()}, /*max_retries=*/1);
  const int64_t id = runs[0];
  auto first = Connect("host-0");
  SendStarted("host-0", id);
  Deliver("host-0", BatchOf(id, 1, 1, 3));
  ASSERT_EQ(*store_->CountBatches(id), 1);

  // The session drops mid-run: attempt 1 fails and is re-queued. The agent
  // comes back still running attempt 1: it is told to cancel it and gets
  // nothing until attempt 1 has ended there.
  fleet_->Disconnect("host-0", first.get());
  auto second = Connect("host-0", HostCaps(4), "host", id);
  ASSERT_THAT(second->CancelledRunIds(), ElementsAre(id));
  EXPECT_THAT(second->Assigned(), ::testing::IsEmpty());

  // Its spool still holds the rest of attempt 1; it replays it.
  Deliver("host-0", BatchOf(id, 1, 2, 3));
  Deliver("host-0", FinishedOf(id, 1, 2, false, "cancelled: the controller gave up"));
  EXPECT_THAT(second->Acks(), ElementsAre(AckOf(id, 2), AckOf(id, 0)));
  EXPECT_EQ(*store_->CountBatches(id), 0) << "attempt 2 has no data yet";
  // Attempt 1 has ended there: attempt 2 of the same run is handed out.
  ASSERT_EQ(second->Assigned().size(), 1u);
  ASSERT_EQ(second->Assigned()[0].attempt(), 2);
  EXPECT_EQ(State(id), v1::RUN_STATE_LEASED);

  // Attempt 2 runs and numbers its batches from 1.
  SendStarted("host-0", id);
  Deliver("host-0", BatchOf(id, 2, 1, 4));
  Deliver("host-0", FinishedOf(id, 2, 1, true));
  EXPECT_EQ(State(id), v1::RUN_STATE_DONE);
  EXPECT_EQ(store_->GetMinibatches(id)->size(), 4u);
  auto result = store_->GetRunResult(id);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->ok());

  // The export holds attempt 1's stored batch and attempt 2's, nothing of
  // the stale replay.
  std::string csv;
  ASSERT_TRUE(store_
                  ->ExportCsv(Run(id).spec().sweep_id(), "minibatches",
                              [&](const std::string& chunk) { csv += chunk; })
                  .ok());
  std::vector<std::string> lines =
      absl::StrSplit(csv, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 8u);  // header, 3 rows of attempt 1, 4 of attempt 2
  int attempt1 = 0;
  int attempt2 = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (absl::StartsWith(lines[i], absl::StrCat(id, ",1,1,"))) ++attempt1;
    if (absl::StartsWith(lines[i], absl::StrCat(id, ",2,1,"))) ++attempt2;
  }
  EXPECT_EQ(attempt1, 3);
  EXPECT_EQ(attempt2, 4);
}

TEST_F(FleetAttemptTest, DataWithoutAnAttemptCountsAsTheCurrentAttempt) {
  auto runs = AddSweep({HostRun()});
  auto conn = Connect("host-0");
  SendStarted("host-0", runs[0]);
  Deliver("host-0", BatchOf(runs[0], 0, 1, 2));  // an old agent
  Deliver("host-0", FinishedOf(runs[0], 0, 1, true));
  EXPECT_THAT(conn->Acks(), ElementsAre(AckOf(runs[0], 1), AckOf(runs[0], 0)));
  EXPECT_EQ(State(runs[0]), v1::RUN_STATE_DONE);
  EXPECT_EQ(store_->GetMinibatches(runs[0])->size(), 2u);
}

}  // namespace
}  // namespace powersweep
