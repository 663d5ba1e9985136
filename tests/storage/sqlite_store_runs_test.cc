// SqliteStore: what the file shows of runs (the applied mode as JSON, the
// lease time). The Store contract of runs is in
// store_conformance_runs_test.cc.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class SqliteRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep =
        store_->CreateSweep(MakeSpec("runs"), MakeRuns(1), clock_.Now());
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    id_ = (*store_->ListRuns(*sweep))[0].spec().run_id();
  }
  std::string Column(const std::string& column) {
    RawConnection raw(path_);
    return raw.Text(absl::StrCat("SELECT COALESCE(", column,
                                 ", 'NULL') FROM runs WHERE run_id = ", id_));
  }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t id_ = 0;
};

TEST_F(SqliteRunsTest, AppliedModeIsStoredAsJson) {
  v1::AppliedPowerMode mode;
  mode.mutable_actual()->set_cpu_cores(2);
  mode.set_cores_provenance(v1::PROVENANCE_EMULATED);
  ASSERT_TRUE(store_->SaveAppliedMode(id_, mode).ok());
  mode.mutable_actual()->set_cpu_cores(3);
  ASSERT_TRUE(store_->SaveAppliedMode(id_, mode).ok());  // overwrite
  EXPECT_THAT(Column("applied_mode_json"), HasSubstr("\"cpu_cores\":3"));
}

TEST_F(SqliteRunsTest, LeaseTimeIsKeptUntilTheRunIsPendingAgain) {
  EXPECT_EQ(Column("leased_unix_ms"), "NULL");
  ASSERT_TRUE(
      store_
          ->TransitionRun(id_, v1::RUN_STATE_LEASED, "host-0", "", clock_.Now())
          .ok());
  EXPECT_EQ(Column("leased_unix_ms"),
            absl::StrCat(absl::ToUnixMillis(clock_.Now())));
  EXPECT_EQ(Column("device_id"), "host-0");
  ASSERT_TRUE(
      store_
          ->TransitionRun(id_, v1::RUN_STATE_PENDING, "", "busy", clock_.Now())
          .ok());
  EXPECT_EQ(Column("leased_unix_ms"), "NULL");
  EXPECT_EQ(Column("device_id"), "NULL");
}

}  // namespace
}  // namespace powersweep
