// SqliteStore: a retried run keeps every attempt's data; readers show the
// current attempt; batches of other attempts are refused.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

constexpr v1::RunState P = v1::RUN_STATE_PENDING;
constexpr v1::RunState L = v1::RUN_STATE_LEASED;
constexpr v1::RunState R = v1::RUN_STATE_RUNNING;
constexpr v1::RunState D = v1::RUN_STATE_DONE;
constexpr v1::RunState F = v1::RUN_STATE_FAILED;

class RetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("retry"), MakeRuns(1), clock_.Now());
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    id_ = (*store_->ListRuns(*sweep))[0].spec().run_id();
  }
  v1::RunStatus Run(int64_t id) { return *store_->GetRun(id); }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t id_ = 0;
};

// Counts rows of `table` for one attempt of a run, through a second
// connection (as sqlite3 or pandas would see the file).
int64_t RowsOfAttempt(const std::string& path, const std::string& table, int64_t run_id,
                      int attempt) {
  RawConnection raw(path);
  return raw.Int(absl::StrCat("SELECT COUNT(*) FROM ", table, " WHERE run_id = ", run_id,
                              " AND attempt = ", attempt));
}

TEST_F(RetryTest, RetryKeepsTheFailedAttemptsDataAndTheNewAttemptStartsAtSeqOne) {
  const int64_t id = id_;
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, R, "", "", clock_.Now()).ok());
  v1::DataBatch first = MakeBatch(id, 1, 5, 2);
  first.set_attempt(1);
  ASSERT_EQ(store_->IngestBatch(first).value(), IngestOutcome::kStored);
  // attempt 0 (an agent that predates the field) is the current attempt.
  ASSERT_EQ(store_->IngestBatch(MakeBatch(id, 2, 5, 2)).value(), IngestOutcome::kStored);
  v1::RunResult failed;
  failed.set_run_id(id);
  failed.set_reason("workload exited with code 1");
  failed.set_exit_code(1);
  failed.set_duration_s(7.0);
  ASSERT_TRUE(store_->FinishRun(failed, F, failed.reason(), clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, P, "", "retry", clock_.Now()).ok());
  ASSERT_EQ(Run(id).spec().attempt(), 2);

  // The readers show the new (empty) attempt ...
  EXPECT_EQ(*store_->CountBatches(id), 0);
  EXPECT_TRUE(store_->GetMinibatches(id)->empty());
  EXPECT_TRUE(store_->GetTelemetry(id)->empty());
  EXPECT_EQ(store_->GetRunResult(id).status().code(), absl::StatusCode::kNotFound);
  // ... but the failed attempt's rows are still in the file.
  EXPECT_EQ(RowsOfAttempt(path_, "batches", id, 1), 2);
  EXPECT_EQ(RowsOfAttempt(path_, "minibatches", id, 1), 10);
  EXPECT_EQ(RowsOfAttempt(path_, "telemetry", id, 1), 4);
  EXPECT_EQ(RowsOfAttempt(path_, "run_results", id, 1), 1);

  // The new attempt numbers its batches from 1 without clashing.
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-1", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, R, "", "", clock_.Now()).ok());
  v1::DataBatch retry = MakeBatch(id, 1, 3, 1);
  retry.set_attempt(2);
  EXPECT_EQ(store_->IngestBatch(retry).value(), IngestOutcome::kStored);
  EXPECT_EQ(store_->IngestBatch(retry).value(), IngestOutcome::kDuplicate);
  EXPECT_EQ(*store_->CountBatches(id), 1);
  EXPECT_EQ(store_->GetMinibatches(id)->size(), 3u);
  EXPECT_EQ(store_->GetTelemetry(id)->size(), 1u);
  EXPECT_EQ(RowsOfAttempt(path_, "minibatches", id, 1), 10);

  // The new attempt's result is stored beside the failed one.
  v1::RunResult done;
  done.set_run_id(id);
  done.set_ok(true);
  done.set_duration_s(9.0);
  ASSERT_TRUE(store_->FinishRun(done, D, "", clock_.Now()).ok());
  EXPECT_EQ(store_->GetRunResult(id)->duration_s(), 9.0);
  EXPECT_EQ(RowsOfAttempt(path_, "run_results", id, 1), 1);
  EXPECT_EQ(RowsOfAttempt(path_, "run_results", id, 2), 1);
}

TEST_F(RetryTest, BatchOfAnOldAttemptIsRefusedAndStoresNothing) {
  const int64_t id = id_;
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, R, "", "", clock_.Now()).ok());
  ASSERT_EQ(store_->IngestBatch(MakeBatch(id, 1, 5, 1)).value(), IngestOutcome::kStored);
  ASSERT_TRUE(store_->TransitionRun(id, F, "", "agent host-0 disconnected during the run",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->TransitionRun(id, P, "", "retry", clock_.Now()).ok());

  // A late batch of attempt 1 (new seq, and a resend of seq 1).
  for (int64_t seq : {2, 1}) {
    v1::DataBatch late = MakeBatch(id, seq, 5, 1);
    late.set_attempt(1);
    auto outcome = store_->IngestBatch(late);
    EXPECT_EQ(outcome.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(outcome.status().message(),
                HasSubstr(absl::StrCat("run ", id,
                                       " is on attempt 2; batch of attempt 1 not stored")));
  }
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM batches"), 1);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches"), 5);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry"), 1);
  EXPECT_EQ(*store_->CountBatches(id), 0);
  // A batch claiming a future attempt is refused too.
  v1::DataBatch future = MakeBatch(id, 1, 5, 1);
  future.set_attempt(3);
  EXPECT_EQ(store_->IngestBatch(future).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches"), 5);
}

}  // namespace
}  // namespace powersweep
