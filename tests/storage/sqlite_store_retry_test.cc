// SqliteStore: a retried run keeps every attempt's rows in the file, each
// under its attempt number; refused batches of other attempts add none.
// What the readers show of retries is in store_conformance_ingest_test.cc.
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

constexpr v1::RunState P = v1::RUN_STATE_PENDING;
constexpr v1::RunState L = v1::RUN_STATE_LEASED;
constexpr v1::RunState R = v1::RUN_STATE_RUNNING;
constexpr v1::RunState D = v1::RUN_STATE_DONE;
constexpr v1::RunState F = v1::RUN_STATE_FAILED;

class SqliteRetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep =
        store_->CreateSweep(MakeSpec("retry"), MakeRuns(1), clock_.Now());
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    id_ = (*store_->ListRuns(*sweep))[0].spec().run_id();
  }
  void To(v1::RunState state) {
    ASSERT_TRUE(store_
                    ->TransitionRun(id_, state, state == L ? "host-0" : "", "",
                                    clock_.Now())
                    .ok());
  }
  // Rows of `table` for one attempt of the run, through a second
  // connection (as sqlite3 or pandas would see the file).
  int64_t RowsOfAttempt(const std::string& table, int attempt) {
    RawConnection raw(path_);
    return raw.Int(absl::StrCat("SELECT COUNT(*) FROM ", table,
                                " WHERE run_id = ", id_,
                                " AND attempt = ", attempt));
  }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t id_ = 0;
};

TEST_F(SqliteRetryTest, EveryAttemptsRowsStayInTheFile) {
  To(L);
  To(R);
  ASSERT_EQ(store_->IngestBatch(MakeBatch(id_, 1, 5, 2)).value(),
            IngestOutcome::kStored);
  ASSERT_EQ(store_->IngestBatch(MakeBatch(id_, 2, 5, 2)).value(),
            IngestOutcome::kStored);
  v1::RunResult failed;
  failed.set_run_id(id_);
  failed.set_reason("workload exited with code 1");
  ASSERT_TRUE(store_->FinishRun(failed, F, failed.reason(), clock_.Now()).ok());
  To(P);
  EXPECT_EQ(RowsOfAttempt("batches", 1), 2);
  EXPECT_EQ(RowsOfAttempt("minibatches", 1), 10);
  EXPECT_EQ(RowsOfAttempt("telemetry", 1), 4);
  EXPECT_EQ(RowsOfAttempt("run_results", 1), 1);
  EXPECT_EQ(RowsOfAttempt("run_aggregates", 1), 1);

  To(L);
  To(R);
  v1::DataBatch retry = MakeBatch(id_, 1, 3, 1);
  retry.set_attempt(2);
  ASSERT_EQ(store_->IngestBatch(retry).value(), IngestOutcome::kStored);
  v1::RunResult done;
  done.set_run_id(id_);
  done.set_ok(true);
  ASSERT_TRUE(store_->FinishRun(done, D, "", clock_.Now()).ok());
  EXPECT_EQ(RowsOfAttempt("batches", 2), 1);
  EXPECT_EQ(RowsOfAttempt("minibatches", 2), 3);
  EXPECT_EQ(RowsOfAttempt("minibatches", 1), 10);
  EXPECT_EQ(RowsOfAttempt("run_results", 1), 1);
  EXPECT_EQ(RowsOfAttempt("run_results", 2), 1);
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int(absl::StrCat(
                "SELECT COUNT(*) FROM run_state_history WHERE run_id = ", id_,
                " AND to_state = 'failed'")),
            1);
}

TEST_F(SqliteRetryTest, BatchOfAnotherAttemptAddsNoRow) {
  To(L);
  To(R);
  ASSERT_EQ(store_->IngestBatch(MakeBatch(id_, 1, 5, 1)).value(),
            IngestOutcome::kStored);
  To(F);
  To(P);
  for (int attempt : {1, 3}) {
    v1::DataBatch other = MakeBatch(id_, 2, 5, 1);
    other.set_attempt(attempt);
    EXPECT_EQ(store_->IngestBatch(other).status().code(),
              absl::StatusCode::kFailedPrecondition);
  }
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM batches"), 1);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches"), 5);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry"), 1);
}

}  // namespace
}  // namespace powersweep
