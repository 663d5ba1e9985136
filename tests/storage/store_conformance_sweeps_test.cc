// Store conformance: devices, sweep creation (atomic), sweep specs and
// statuses, the database's identity.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;

template <typename Factory>
class StoreSweepsTest : public StoreConformanceTest<Factory> {};
TYPED_TEST_SUITE(StoreSweepsTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreSweepsTest,
           CreateSweepStoresEveryRunPendingWithACreationHistoryRow) {
  Store& store = *this->store_;
  std::vector<v1::RunSpec> specs = MakeRuns(3);
  for (v1::RunSpec& spec : specs) {  // ignored by CreateSweep
    spec.set_run_id(77);
    spec.set_sweep_id(88);
    spec.set_attempt(5);
  }
  auto sweep = store.CreateSweep(MakeSpec("s1"), specs, this->clock_.Now());
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  auto runs = store.ListRuns(*sweep);
  ASSERT_TRUE(runs.ok()) << runs.status();
  ASSERT_EQ(runs->size(), 3u);
  std::set<int64_t> ids;
  for (size_t i = 0; i < runs->size(); ++i) {
    const v1::RunStatus& run = (*runs)[i];
    ids.insert(run.spec().run_id());
    EXPECT_EQ(run.state(), kPending);
    EXPECT_EQ(run.spec().sweep_id(), *sweep);
    EXPECT_EQ(run.spec().attempt(), 1);
    EXPECT_NE(run.spec().run_id(), 77);
    if (i > 0) {
      EXPECT_GT(run.spec().run_id(), (*runs)[i - 1].spec().run_id());
    }
    EXPECT_EQ(run.device_id(), "");
    EXPECT_EQ(run.reason(), "");
    EXPECT_EQ(run.started_unix_ms(), 0);
    EXPECT_EQ(run.finished_unix_ms(), 0);
    EXPECT_FALSE(run.has_summary());
    EXPECT_EQ(run.created_unix_ms(), absl::ToUnixMillis(this->clock_.Now()));
    // The rest of the spec comes back as given.
    v1::RunSpec expected = specs[i];
    expected.set_run_id(run.spec().run_id());
    expected.set_sweep_id(*sweep);
    expected.set_attempt(1);
    EXPECT_TRUE(MessageDifferencer::Equals(run.spec(), expected))
        << run.spec().ShortDebugString();
    auto history = store.GetRunHistory(run.spec().run_id());
    ASSERT_TRUE(history.ok()) << history.status();
    ASSERT_EQ(history->size(), 1u);
    EXPECT_EQ((*history)[0].run_id, run.spec().run_id());
    EXPECT_EQ((*history)[0].from, v1::RUN_STATE_UNSPECIFIED);
    EXPECT_EQ((*history)[0].to, kPending);
    EXPECT_EQ((*history)[0].device_id, "");
    EXPECT_EQ((*history)[0].reason, "");
    EXPECT_EQ((*history)[0].at, this->clock_.Now());
  }
  EXPECT_EQ(ids.size(), 3u);
}

TYPED_TEST(StoreSweepsTest, RunIdsAreUniqueAcrossSweeps) {
  const std::vector<int64_t> a = this->CreateRuns(2);
  const std::vector<int64_t> b = this->CreateRuns(2);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_GT(b[0], a[1]);
  EXPECT_EQ(this->Run(b[0]).spec().run_id(), b[0]);
}

TYPED_TEST(StoreSweepsTest, CreateSweepOfMalformedRunsStoresNothing) {
  Store& store = *this->store_;
  std::vector<v1::RunSpec> runs = MakeRuns(3);
  runs[1].mutable_workload()->set_batch_size(-1);  // no negative counts
  auto sweep = store.CreateSweep(MakeSpec("broken"), runs, this->clock_.Now());
  ASSERT_FALSE(sweep.ok());
  EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument)
      << sweep.status();
  auto sweeps = store.ListSweeps();
  ASSERT_TRUE(sweeps.ok());
  EXPECT_TRUE(sweeps->empty());
  EXPECT_TRUE(store.ListPendingRuns(10)->empty());
  EXPECT_EQ(store.GetRun(1).status().code(), absl::StatusCode::kNotFound);

  for (auto change : std::vector<std::function<void(v1::RunSpec*)>>{
           [](v1::RunSpec* r) {
             r->mutable_workload()->set_loader_workers(-1);
           },
           [](v1::RunSpec* r) { r->mutable_power_mode()->set_cpu_cores(-2); },
           [](v1::RunSpec* r) {
             r->mutable_power_mode()->set_cpu_freq_khz(-1);
           },
           [](v1::RunSpec* r) { r->mutable_power_mode()->set_gpu_freq_hz(-1); },
           [](v1::RunSpec* r) { r->mutable_power_mode()->set_mem_freq_hz(-1); },
           [](v1::RunSpec* r) { r->set_repetition(-1); }}) {
    std::vector<v1::RunSpec> bad = MakeRuns(2);
    change(&bad[1]);
    EXPECT_EQ(store.CreateSweep(MakeSpec("bad"), bad, this->clock_.Now())
                  .status()
                  .code(),
              absl::StatusCode::kInvalidArgument)
        << bad[1].ShortDebugString();
  }
  EXPECT_TRUE(store.ListSweeps()->empty());

  // The store is still usable afterwards, and the failures used no ids.
  auto good =
      store.CreateSweep(MakeSpec("good"), MakeRuns(2), this->clock_.Now());
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(*good, 1);
  EXPECT_EQ(this->RunIds(*good), (std::vector<int64_t>{1, 2}));
}

TYPED_TEST(StoreSweepsTest, SweepWithoutRunsIsFinishedAtOnce) {
  const int64_t sweep = this->AddSweep({});
  auto status = this->store_->GetSweepStatus(sweep);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->total(), 0);
  EXPECT_TRUE(status->finished());
  EXPECT_TRUE(this->store_->ListRuns(sweep)->empty());
}

TYPED_TEST(StoreSweepsTest, SweepSpecRoundTripsAndUnknownSweepIsNotFound) {
  Store& store = *this->store_;
  v1::SweepSpec spec = MakeSpec("roundtrip");
  spec.add_power_modes()->set_preset("15W");
  spec.set_max_retries(2);
  auto sweep = store.CreateSweep(spec, MakeRuns(1), this->clock_.Now());
  ASSERT_TRUE(sweep.ok());
  auto got = store.GetSweepSpec(*sweep);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*got, spec)) << got->DebugString();

  EXPECT_EQ(store.GetSweepSpec(*sweep + 100).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.GetSweepStatus(*sweep + 100).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.ListRuns(*sweep + 100).status().code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreSweepsTest, SweepStatusCountsRunsPerState) {
  Store& store = *this->store_;
  const absl::Time created = this->clock_.Now();
  const int64_t sweep = this->AddSweep(MakeRuns(6), "status");
  const std::vector<int64_t> id = this->RunIds(sweep);
  // 0 pending; 1 leased; 2 running; 3 done after 30 s; 4 failed; 5 cancelled.
  this->Move(id[1], {kLeased});
  this->Move(id[2], {kLeased, kRunning});
  this->Move(id[3], {kLeased, kRunning});
  this->clock_.Advance(absl::Seconds(30));
  this->Move(id[3], {kDone});
  this->Move(id[4], {kLeased, kFailed});
  this->Move(id[5], {kCancelled});

  auto status = store.GetSweepStatus(sweep);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->sweep_id(), sweep);
  EXPECT_EQ(status->name(), "status");
  EXPECT_EQ(status->created_unix_ms(), absl::ToUnixMillis(created));
  EXPECT_EQ(status->total(), 6);
  EXPECT_EQ(status->pending(), 1);
  EXPECT_EQ(status->active(), 2);
  EXPECT_EQ(status->done(), 1);
  EXPECT_EQ(status->failed(), 1);
  EXPECT_EQ(status->cancelled(), 1);
  EXPECT_FALSE(status->finished());
  EXPECT_DOUBLE_EQ(status->mean_done_run_s(), 30.0);

  this->Move(id[0], {kCancelled});
  this->Move(id[1], {kCancelled});
  this->clock_.Advance(absl::Seconds(30));
  this->Move(id[2], {kDone});  // started at t0, done at t0 + 60 s
  status = store.GetSweepStatus(sweep);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->pending(), 0);
  EXPECT_EQ(status->active(), 0);
  EXPECT_EQ(status->done(), 2);
  EXPECT_EQ(status->cancelled(), 3);
  EXPECT_TRUE(status->finished());
  EXPECT_DOUBLE_EQ(status->mean_done_run_s(), 45.0);
}

TYPED_TEST(StoreSweepsTest, ListSweepsReturnsEverySweepInOrder) {
  Store& store = *this->store_;
  EXPECT_TRUE(store.ListSweeps()->empty());
  ASSERT_TRUE(
      store.CreateSweep(MakeSpec("a"), MakeRuns(1), this->clock_.Now()).ok());
  this->clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(
      store.CreateSweep(MakeSpec("b"), MakeRuns(2), this->clock_.Now()).ok());
  auto sweeps = store.ListSweeps();
  ASSERT_TRUE(sweeps.ok());
  ASSERT_EQ(sweeps->size(), 2u);
  EXPECT_EQ((*sweeps)[0].name(), "a");
  EXPECT_EQ((*sweeps)[0].total(), 1);
  EXPECT_EQ((*sweeps)[1].name(), "b");
  EXPECT_EQ((*sweeps)[1].total(), 2);
  EXPECT_EQ((*sweeps)[1].pending(), 2);
  EXPECT_LT((*sweeps)[0].sweep_id(), (*sweeps)[1].sweep_id());
  EXPECT_TRUE(MessageDifferencer::Equals(
      (*sweeps)[1], *store.GetSweepStatus((*sweeps)[1].sweep_id())));
}

TYPED_TEST(StoreSweepsTest, UpsertDeviceInsertsThenUpdatesKeepingOneEntry) {
  Store& store = *this->store_;
  EXPECT_TRUE(store.ListDevices()->empty());
  v1::DeviceIdentity identity;
  identity.set_device_id("host-0");
  identity.set_device_class("host");
  identity.set_platform("host");
  identity.set_kernel("6.1.0");
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(4);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  caps.add_models("lenet5");
  ASSERT_TRUE(store.UpsertDevice(identity, caps, this->clock_.Now()).ok());
  this->clock_.Advance(absl::Minutes(5));
  identity.set_kernel("6.1.1");
  caps.set_cpu_cores(2);
  ASSERT_TRUE(store.UpsertDevice(identity, caps, this->clock_.Now()).ok());

  auto devices = store.ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 1u);
  const v1::DeviceStatus& d = (*devices)[0];
  EXPECT_TRUE(MessageDifferencer::Equals(d.identity(), identity));
  EXPECT_TRUE(MessageDifferencer::Equals(d.capabilities(), caps));
  EXPECT_EQ(d.last_seen_unix_ms(), absl::ToUnixMillis(this->clock_.Now()));
  // Left for the registry to fill.
  EXPECT_FALSE(d.connected());
  EXPECT_EQ(d.current_run_id(), 0);

  identity.clear_device_id();
  EXPECT_EQ(store.UpsertDevice(identity, caps, this->clock_.Now()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.ListDevices()->size(), 1u);
}

TYPED_TEST(StoreSweepsTest, DevicesAreListedByDeviceId) {
  Store& store = *this->store_;
  for (const char* id : {"orin-1", "host-0", "orin-0"}) {
    v1::DeviceIdentity identity;
    identity.set_device_id(id);
    ASSERT_TRUE(store
                    .UpsertDevice(identity, v1::DeviceCapabilities(),
                                  this->clock_.Now())
                    .ok());
  }
  auto devices = store.ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  std::vector<std::string> ids;
  for (const v1::DeviceStatus& d : *devices)
    ids.push_back(d.identity().device_id());
  EXPECT_EQ(ids, (std::vector<std::string>{"host-0", "orin-0", "orin-1"}));
}

TYPED_TEST(StoreSweepsTest, DatabaseIdIsStableAndTellsStoresApart) {
  auto id = this->store_->GetDatabaseId();
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_FALSE(id->empty());
  this->CreateRuns(1);
  EXPECT_EQ(this->store_->GetDatabaseId().value_or(""), *id);

  TypeParam other_factory;
  std::unique_ptr<Store> other = other_factory.Make();
  ASSERT_NE(other, nullptr);
  auto other_id = other->GetDatabaseId();
  ASSERT_TRUE(other_id.ok()) << other_id.status();
  EXPECT_NE(*other_id, *id);
}

}  // namespace
}  // namespace powersweep
