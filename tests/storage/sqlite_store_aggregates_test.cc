// SqliteStore: the record aggregates of run attempts in table
// run_aggregates (schema 7): stored when a run reaches a final state,
// dropped when records arrive for the attempt afterwards. That the
// aggregates read back equal the records is in
// store_conformance_tables_test.cc.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

class SqliteAggregatesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("s"), MakeRuns(3), kNow);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    sweep_ = *sweep;
    const auto runs = store_->ListRuns(sweep_);
    ASSERT_TRUE(runs.ok()) << runs.status();
    for (const v1::RunStatus& r : *runs) ids_.push_back(r.spec().run_id());
  }
  void Start(int64_t id) {
    ASSERT_TRUE(
        store_->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", kNow)
            .ok());
    ASSERT_TRUE(
        store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", kNow).ok());
  }
  void Finish(int64_t id) {
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(true);
    ASSERT_TRUE(store_->FinishRun(result, v1::RUN_STATE_DONE, "", kNow).ok());
  }
  int64_t StoredRows(const std::string& where = "1") {
    RawConnection raw(path_);
    return raw.Int(
        absl::StrCat("SELECT COUNT(*) FROM run_aggregates WHERE ", where));
  }

  TempDir dir_;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_ = 0;
  std::vector<int64_t> ids_;
};

TEST_F(SqliteAggregatesTest, StoredWhenARunReachesAFinalState) {
  Start(ids_[0]);
  Start(ids_[1]);
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(ids_[0], 1, 7, 9)).ok());
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(ids_[1], 1, 7, 9)).ok());
  EXPECT_EQ(StoredRows(), 0);
  Finish(ids_[0]);
  EXPECT_EQ(StoredRows(), 1);
  EXPECT_EQ(StoredRows(absl::StrCat("run_id = ", ids_[0],
                                    " AND minibatches = 7 AND"
                                    " telemetry_samples = 9 AND attempt = 1")),
            1);
  ASSERT_TRUE(
      store_->TransitionRun(ids_[2], v1::RUN_STATE_CANCELLED, "", "", kNow)
          .ok());
  EXPECT_EQ(StoredRows(), 2);  // an empty attempt has (zero) aggregates too
  // The readers agree with what was stored.
  auto aggs = store_->GetSweepAggregates(sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 7);
  EXPECT_EQ((*aggs)[1].aggregates.summary.minibatches(), 7);  // computed
}

TEST_F(SqliteAggregatesTest, RecordsArrivingAfterTheFinishDropTheStoredRow) {
  Start(ids_[0]);
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(ids_[0], 1, 7, 9)).ok());
  Finish(ids_[0]);
  EXPECT_EQ(StoredRows(), 1);
  ASSERT_TRUE(
      store_->IngestBatch(MakeBatch(ids_[0], 1, 7, 9)).ok());  // a resend
  EXPECT_EQ(StoredRows(), 1);
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(ids_[0], 2, 7, 9)).ok());
  EXPECT_EQ(StoredRows(), 0);
  auto aggs = store_->GetSweepAggregates(sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 14);
}

}  // namespace
}  // namespace powersweep
