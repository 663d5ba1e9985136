// SqliteStore: what the file shows of devices and sweeps (readable with
// plain SQL), and a refused sweep leaving no row. The Store contract of
// devices and sweeps is in store_conformance_sweeps_test.cc.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class SqliteSweepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
  }
  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(SqliteSweepsTest, RunsAreReadableWithPlainSqlEnumsAsText) {
  auto sweep = store_->CreateSweep(MakeSpec("s1"), MakeRuns(3), clock_.Now());
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  RawConnection raw(path_);
  EXPECT_EQ(
      raw.Int("SELECT COUNT(*) FROM runs WHERE state = 'pending' AND task = "
              "'train' AND runtime = 'native'"),
      3);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_state_history WHERE from_state = "
                    "'unspecified' AND to_state = 'pending'"),
            3);
  EXPECT_EQ(raw.Text("SELECT name FROM sweeps"), "s1");
}

TEST_F(SqliteSweepsTest, RefusedSweepNamesTheCheckAndLeavesNoRow) {
  std::vector<v1::RunSpec> runs = MakeRuns(3);
  runs[1].mutable_workload()->set_batch_size(-1);  // refused by a CHECK
  auto sweep = store_->CreateSweep(MakeSpec("broken"), runs, clock_.Now());
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sweep.status().message(), HasSubstr("CHECK"));
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sweeps"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_state_history"), 0);

  // The transaction was rolled back: the next sweep is stored whole.
  auto good = store_->CreateSweep(MakeSpec("good"), MakeRuns(2), clock_.Now());
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs"), 2);
}

TEST_F(SqliteSweepsTest, DeviceKeepsItsFirstSeenTime) {
  v1::DeviceIdentity identity;
  identity.set_device_id("host-0");
  identity.set_device_class("host");
  identity.set_kernel("6.1.0");
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  ASSERT_TRUE(store_->UpsertDevice(identity, caps, clock_.Now()).ok());
  const absl::Time first = clock_.Now();
  clock_.Advance(absl::Minutes(5));
  identity.set_kernel("6.1.1");
  ASSERT_TRUE(store_->UpsertDevice(identity, caps, clock_.Now()).ok());
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM devices"), 1);
  EXPECT_EQ(raw.Int("SELECT first_seen_unix_ms FROM devices"),
            absl::ToUnixMillis(first));
  EXPECT_EQ(raw.Int("SELECT last_seen_unix_ms FROM devices"),
            absl::ToUnixMillis(clock_.Now()));
  EXPECT_EQ(raw.Text("SELECT kernel FROM devices"), "6.1.1");
}

}  // namespace
}  // namespace powersweep
