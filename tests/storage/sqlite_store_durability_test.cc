// SqliteStore: readers on other connections (WAL) and reopening the file.
// Threads sharing a store and a sink using the store during an export are
// in the conformance suite (store_conformance_*_test.cc).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

class DurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("durable"), MakeRuns(4), clock_.Now());
    ASSERT_TRUE(sweep.ok());
    sweep_id_ = *sweep;
    auto runs = store_->ListRuns(sweep_id_);
    ASSERT_TRUE(runs.ok()) << runs.status();
    for (const auto& run : *runs) run_ids_.push_back(run.spec().run_id());
  }
  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_id_ = 0;
  std::vector<int64_t> run_ids_;
};

TEST_F(DurabilityTest, SecondConnectionSeesCommittedData) {
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(run_ids_[0], 1, 50, 10)).ok());
  RawConnection reader(path_);
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM runs"), 4);
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM minibatches"), 50);
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(run_ids_[0], 2, 50, 10)).ok());
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM minibatches"), 100);
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM telemetry"), 20);
}

TEST_F(DurabilityTest, ReaderInTheMiddleOfATransactionDoesNotBlockTheWriter) {
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(run_ids_[0], 1, 50, 0)).ok());
  RawConnection reader(path_);
  ASSERT_TRUE(reader.Exec("BEGIN").ok());
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM minibatches"), 50);  // snapshot taken
  // The store commits while the reader's snapshot is open (WAL).
  auto outcome = store_->IngestBatch(MakeBatch(run_ids_[0], 2, 50, 0));
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM minibatches"), 50);  // still its snapshot
  ASSERT_TRUE(reader.Exec("COMMIT").ok());
  EXPECT_EQ(reader.Int("SELECT COUNT(*) FROM minibatches"), 100);
}

TEST_F(DurabilityTest, DataSurvivesClosingAndReopening) {
  ASSERT_TRUE(store_->TransitionRun(run_ids_[0], v1::RUN_STATE_LEASED, "host-0", "",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(run_ids_[0], 1, 20, 5)).ok());
  const std::string database_id = store_->GetDatabaseId().value_or("");
  ASSERT_FALSE(database_id.empty());
  store_.reset();

  store_ = OpenStore(path_);
  ASSERT_NE(store_, nullptr);
  auto run = store_->GetRun(run_ids_[0]);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->state(), v1::RUN_STATE_LEASED);
  EXPECT_EQ(run->device_id(), "host-0");
  EXPECT_EQ(store_->GetMinibatches(run_ids_[0])->size(), 20u);
  EXPECT_EQ(store_->GetTelemetry(run_ids_[0])->size(), 5u);
  EXPECT_EQ(store_->GetSweepStatus(sweep_id_)->total(), 4);
  EXPECT_EQ(store_->GetDatabaseId().value_or(""), database_id);
  // The batch is still known after the restart: a resend is a duplicate.
  EXPECT_EQ(store_->IngestBatch(MakeBatch(run_ids_[0], 1, 20, 5)).value(),
            IngestOutcome::kDuplicate);
}

}  // namespace
}  // namespace powersweep
