// SweepSubmitter against the real SqliteStore on a temporary file.
#include <cstdio>
#include <memory>
#include <string>

#include "common/fake_clock.h"
#include "controller/sweep/submitter.h"
#include "controller/sweep/sweep_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/sqlite_store.h"

namespace powersweep {
namespace {

class SubmitToSqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/submitter_sqlite_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            ".db";
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::remove((path_ + suffix).c_str());
    }
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
  }

  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  FakeClock clock_;
};

constexpr char kSweep[] = R"(name: sqlite
device_classes: host
models: lenet5
datasets: fashion-mnist
tasks: [train, infer]
batch_sizes: [16, 64]
power_modes: [{cpu_cores: 2}, {cpu_cores: 4}]
repetitions: 2
minibatches: 20
)";

TEST_F(SubmitToSqliteTest, StoresEveryRunPendingInExpansionOrder) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(kSweep);
  ASSERT_TRUE(spec.ok()) << spec.status();
  SweepSubmitter submitter(store_.get(), &clock_);
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter.Submit(*spec, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->run_count(), 16);  // 2 tasks x 2 batch sizes x 2 modes x 2 reps
  EXPECT_THAT(r->warnings(), ::testing::Contains(::testing::HasSubstr(
                                 "no device of class host is registered")));

  absl::StatusOr<std::vector<v1::RunStatus>> runs =
      store_->ListRuns(r->sweep_id());
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 16u);
  for (size_t i = 0; i < runs->size(); ++i) {
    const v1::RunStatus& run = (*runs)[i];
    EXPECT_EQ(run.state(), v1::RUN_STATE_PENDING);
    EXPECT_EQ(run.spec().attempt(), 1);
    EXPECT_EQ(run.spec().repetition(), i < 8 ? 0 : 1);
    EXPECT_EQ(run.spec().workload().minibatches(), 20);
    EXPECT_DOUBLE_EQ(run.spec().telemetry_hz(), 10);
  }
  // The scheduler takes the oldest first: a whole first repetition.
  absl::StatusOr<std::vector<v1::RunSpec>> pending = store_->ListPendingRuns(8);
  ASSERT_TRUE(pending.ok()) << pending.status();
  ASSERT_EQ(pending->size(), 8u);
  for (const v1::RunSpec& p : *pending) EXPECT_EQ(p.repetition(), 0);

  absl::StatusOr<v1::SweepSpec> stored = store_->GetSweepSpec(r->sweep_id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->name(), "sqlite");
  EXPECT_DOUBLE_EQ(stored->timeout_s(), 600);
}

TEST_F(SubmitToSqliteTest, RejectedSweepLeavesTheDatabaseEmpty) {
  absl::StatusOr<v1::SweepSpec> spec = ParseSweepYaml(kSweep);
  ASSERT_TRUE(spec.ok()) << spec.status();
  spec->set_batch_sizes(0, 0);
  SweepSubmitter submitter(store_.get(), &clock_);
  absl::StatusOr<v1::SubmitSweepResponse> r = submitter.Submit(*spec, {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              ::testing::HasSubstr("batch_sizes[0]: must be positive, got 0"));
  absl::StatusOr<std::vector<v1::SweepStatus>> sweeps = store_->ListSweeps();
  ASSERT_TRUE(sweeps.ok()) << sweeps.status();
  EXPECT_TRUE(sweeps->empty());
}

}  // namespace
}  // namespace powersweep
