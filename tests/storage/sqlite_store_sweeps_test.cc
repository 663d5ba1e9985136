// SqliteStore: devices, sweep creation (atomic), sweep specs and statuses.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

class SweepsTest : public ::testing::Test {
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

TEST_F(SweepsTest, CreateSweepStoresEveryRunPendingWithACreationHistoryRow) {
  auto sweep = store_->CreateSweep(MakeSpec("s1"), MakeRuns(3), clock_.Now());
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  auto runs = store_->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 3u);
  for (size_t i = 0; i < runs->size(); ++i) {
    const v1::RunStatus& run = (*runs)[i];
    EXPECT_EQ(run.state(), v1::RUN_STATE_PENDING);
    EXPECT_EQ(run.spec().sweep_id(), *sweep);
    EXPECT_EQ(run.spec().attempt(), 1);
    EXPECT_EQ(run.spec().workload().batch_size(), 8 * static_cast<int>(i + 1));
    EXPECT_EQ(run.spec().power_mode().preset(), "MAXN");
    EXPECT_EQ(run.created_unix_ms(), absl::ToUnixMillis(clock_.Now()));
    auto history = store_->GetRunHistory(run.spec().run_id());
    ASSERT_TRUE(history.ok()) << history.status();
    ASSERT_EQ(history->size(), 1u);
    EXPECT_EQ((*history)[0].from, v1::RUN_STATE_UNSPECIFIED);
    EXPECT_EQ((*history)[0].to, v1::RUN_STATE_PENDING);
    EXPECT_EQ((*history)[0].at, clock_.Now());
  }
  // Readable with plain sqlite3: enums as text.
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs WHERE state = 'pending' AND task = "
                    "'train' AND runtime = 'native'"),
            3);
}

TEST_F(SweepsTest, CreateSweepThatFailsMidwayStoresNothing) {
  std::vector<v1::RunSpec> runs = MakeRuns(3);
  runs[1].mutable_workload()->set_batch_size(-1);  // refused by a CHECK
  auto sweep = store_->CreateSweep(MakeSpec("broken"), runs, clock_.Now());
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(sweep.status().message(), HasSubstr("CHECK"));

  auto sweeps = store_->ListSweeps();
  ASSERT_TRUE(sweeps.ok());
  EXPECT_TRUE(sweeps->empty());
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM sweeps"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_state_history"), 0);

  // The store is still usable afterwards (the transaction was rolled back).
  auto good = store_->CreateSweep(MakeSpec("good"), MakeRuns(2), clock_.Now());
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs"), 2);
}

TEST_F(SweepsTest, SweepSpecRoundTripsAndUnknownSweepIsNotFound) {
  v1::SweepSpec spec = MakeSpec("roundtrip");
  spec.add_power_modes()->set_preset("15W");
  spec.set_max_retries(2);
  auto sweep = store_->CreateSweep(spec, MakeRuns(1), clock_.Now());
  ASSERT_TRUE(sweep.ok());
  auto got = store_->GetSweepSpec(*sweep);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*got, spec)) << got->DebugString();

  auto missing = store_->GetSweepSpec(*sweep + 100);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetSweepStatus(*sweep + 100).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->ListRuns(*sweep + 100).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SweepsTest, SweepStatusCountsRunsPerState) {
  auto sweep = store_->CreateSweep(MakeSpec("status"), MakeRuns(6), clock_.Now());
  ASSERT_TRUE(sweep.ok());
  auto runs = store_->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok());
  auto id = [&](int i) { return (*runs)[i].spec().run_id(); };
  auto go = [&](int i, v1::RunState to) {
    ASSERT_TRUE(store_->TransitionRun(id(i), to, "host-0", "", clock_.Now()).ok());
  };
  // 0 pending; 1 leased; 2 running; 3 done after 30 s; 4 failed; 5 cancelled.
  go(1, v1::RUN_STATE_LEASED);
  go(2, v1::RUN_STATE_LEASED);
  go(2, v1::RUN_STATE_RUNNING);
  go(3, v1::RUN_STATE_LEASED);
  go(3, v1::RUN_STATE_RUNNING);
  clock_.Advance(absl::Seconds(30));
  go(3, v1::RUN_STATE_DONE);
  go(4, v1::RUN_STATE_LEASED);
  go(4, v1::RUN_STATE_FAILED);
  go(5, v1::RUN_STATE_CANCELLED);

  auto status = store_->GetSweepStatus(*sweep);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->name(), "status");
  EXPECT_EQ(status->total(), 6);
  EXPECT_EQ(status->pending(), 1);
  EXPECT_EQ(status->active(), 2);
  EXPECT_EQ(status->done(), 1);
  EXPECT_EQ(status->failed(), 1);
  EXPECT_EQ(status->cancelled(), 1);
  EXPECT_FALSE(status->finished());
  EXPECT_DOUBLE_EQ(status->mean_done_run_s(), 30.0);

  go(0, v1::RUN_STATE_CANCELLED);
  go(1, v1::RUN_STATE_CANCELLED);
  go(2, v1::RUN_STATE_DONE);  // started at t0, done at t0 + 30 s
  status = store_->GetSweepStatus(*sweep);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->pending(), 0);
  EXPECT_EQ(status->active(), 0);
  EXPECT_EQ(status->done(), 2);
  EXPECT_TRUE(status->finished());
  EXPECT_DOUBLE_EQ(status->mean_done_run_s(), 30.0);
}

TEST_F(SweepsTest, ListSweepsReturnsEverySweepInOrder) {
  ASSERT_TRUE(store_->CreateSweep(MakeSpec("a"), MakeRuns(1), clock_.Now()).ok());
  ASSERT_TRUE(store_->CreateSweep(MakeSpec("b"), MakeRuns(2), clock_.Now()).ok());
  auto sweeps = store_->ListSweeps();
  ASSERT_TRUE(sweeps.ok());
  ASSERT_EQ(sweeps->size(), 2u);
  EXPECT_EQ((*sweeps)[0].name(), "a");
  EXPECT_EQ((*sweeps)[0].total(), 1);
  EXPECT_EQ((*sweeps)[1].name(), "b");
  EXPECT_EQ((*sweeps)[1].total(), 2);
  EXPECT_LT((*sweeps)[0].sweep_id(), (*sweeps)[1].sweep_id());
}

TEST_F(SweepsTest, UpsertDeviceInsertsThenUpdatesKeepingOneRow) {
  v1::DeviceIdentity identity;
  identity.set_device_id("host-0");
  identity.set_device_class("host");
  identity.set_platform("host");
  identity.set_kernel("6.1.0");
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  ASSERT_TRUE(store_->UpsertDevice(identity, caps, clock_.Now()).ok());
  const absl::Time first = clock_.Now();
  clock_.Advance(absl::Minutes(5));
  identity.set_kernel("6.1.1");
  caps.set_cpu_cores(2);
  ASSERT_TRUE(store_->UpsertDevice(identity, caps, clock_.Now()).ok());

  auto devices = store_->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].identity().kernel(), "6.1.1");
  EXPECT_EQ((*devices)[0].capabilities().cpu_cores(), 2);
  EXPECT_EQ((*devices)[0].capabilities().runtimes(0), v1::RUNTIME_NATIVE);
  EXPECT_EQ((*devices)[0].last_seen_unix_ms(), absl::ToUnixMillis(clock_.Now()));
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT first_seen_unix_ms FROM devices"), absl::ToUnixMillis(first));

  identity.clear_device_id();
  EXPECT_EQ(store_->UpsertDevice(identity, caps, clock_.Now()).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace powersweep
