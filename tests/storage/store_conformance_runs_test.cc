// Store conformance: run state transitions and their history, retries and
// returned leases, and the run queries (pending runs, the pending-run
// filter of dispatch, active runs).
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

template <typename Factory>
class StoreRunsTest : public StoreConformanceTest<Factory> {
 protected:
  std::vector<int64_t> PendingIds(int limit) {
    std::vector<int64_t> ids;
    auto pending = this->store_->ListPendingRuns(limit);
    EXPECT_TRUE(pending.ok()) << pending.status();
    if (pending.ok()) {
      for (const v1::RunSpec& spec : *pending) ids.push_back(spec.run_id());
    }
    return ids;
  }
  std::vector<int64_t> PendingForIds(const PendingFilter& filter,
                                     int limit = 100) {
    std::vector<int64_t> ids;
    auto pending = this->store_->ListPendingRunsFor(filter, limit);
    EXPECT_TRUE(pending.ok()) << pending.status();
    if (pending.ok()) {
      for (const v1::RunSpec& spec : *pending) ids.push_back(spec.run_id());
    }
    return ids;
  }
  std::vector<int64_t> ActiveIds(const std::string& device) {
    std::vector<int64_t> ids;
    auto active = this->store_->ListActiveRuns(device);
    EXPECT_TRUE(active.ok()) << active.status();
    if (active.ok()) {
      for (const v1::RunStatus& run : *active)
        ids.push_back(run.spec().run_id());
    }
    return ids;
  }
};
TYPED_TEST_SUITE(StoreRunsTest, StoreImplementations, StoreImplementationNames);

TYPED_TEST(StoreRunsTest,
           EveryTransitionIsAllowedOrRefusedExactlyAsStoreHSays) {
  Store& store = *this->store_;
  const std::set<std::pair<v1::RunState, v1::RunState>> allowed = {
      {kPending, kLeased}, {kPending, kCancelled}, {kLeased, kRunning},
      {kLeased, kPending}, {kLeased, kFailed},     {kLeased, kCancelled},
      {kRunning, kDone},   {kRunning, kFailed},    {kRunning, kCancelled},
      {kFailed, kPending}, {kFailed, kDone},      {kCancelled, kPending}};
  const std::vector<v1::RunState> states = {v1::RUN_STATE_UNSPECIFIED,
                                            kPending,
                                            kLeased,
                                            kRunning,
                                            kDone,
                                            kFailed,
                                            kCancelled};
  const std::vector<v1::RunState> from_states(states.begin() + 1, states.end());
  std::vector<int64_t> ids =
      this->CreateRuns(static_cast<int>(from_states.size() * states.size()));
  size_t next = 0;
  for (v1::RunState from : from_states) {
    for (v1::RunState to : states) {
      const int64_t id = ids[next++];
      this->Move(id, PathTo(from));
      const v1::RunStatus before = this->Run(id);
      ASSERT_EQ(before.state(), from);
      const size_t history_before = this->HistorySize(id);
      absl::Status st =
          store.TransitionRun(id, to, "host-1", "why", this->clock_.Now());
      const std::string label =
          absl::StrCat(v1::RunState_Name(from), " -> ", v1::RunState_Name(to));
      if (allowed.count({from, to})) {
        EXPECT_TRUE(st.ok()) << label << ": " << st;
        EXPECT_EQ(this->Run(id).state(), to) << label;
        EXPECT_EQ(this->HistorySize(id), history_before + 1) << label;
      } else {
        EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition)
            << label << ": " << st;
        EXPECT_EQ(this->Run(id).SerializeAsString(), before.SerializeAsString())
            << label;
        EXPECT_EQ(this->HistorySize(id), history_before) << label;
      }
    }
  }
}

TYPED_TEST(StoreRunsTest, RefusedTransitionNamesTheRunAndBothStates) {
  const int64_t id = this->CreateRuns(1)[0];
  this->Move(id, PathTo(kDone));
  absl::Status st = this->store_->TransitionRun(id, kRunning, "host-0", "",
                                                this->clock_.Now());
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            absl::StrCat("run ", id, " is done and cannot move to running"));
}

// A rerun may give a run a longer timeout: only while it is pending.
TYPED_TEST(StoreRunsTest, ThePendingRunsTimeoutCanBeChanged) {
  const int64_t id = this->CreateRuns(1)[0];
  ASSERT_TRUE(this->store_->SetRunTimeout(id, 1800).ok());
  EXPECT_DOUBLE_EQ(this->store_->GetRun(id)->spec().timeout_s(), 1800);
  EXPECT_EQ(this->store_->SetRunTimeout(id, -1).code(),
            absl::StatusCode::kInvalidArgument);
  this->Move(id, PathTo(kDone));
  const absl::Status st = this->store_->SetRunTimeout(id, 60);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(), absl::StrCat("run ", id, " is done, not pending: "
                                       "its timeout is not changed"));
  EXPECT_DOUBLE_EQ(this->store_->GetRun(id)->spec().timeout_s(), 1800);
}

TYPED_TEST(StoreRunsTest, TransitionsSetDeviceTimesAndReason) {
  Store& store = *this->store_;
  const int64_t id = this->CreateRuns(1)[0];
  const absl::Time t0 = this->clock_.Now();
  ASSERT_TRUE(
      store.TransitionRun(id, kLeased, "host-0", "", this->clock_.Now()).ok());
  EXPECT_EQ(this->Run(id).device_id(), "host-0");
  EXPECT_EQ(this->Run(id).started_unix_ms(), 0);
  this->clock_.Advance(absl::Seconds(2));
  ASSERT_TRUE(
      store.TransitionRun(id, kRunning, "", "", this->clock_.Now()).ok());
  EXPECT_EQ(this->Run(id).device_id(), "host-0");
  EXPECT_EQ(this->Run(id).started_unix_ms(),
            absl::ToUnixMillis(t0 + absl::Seconds(2)));
  EXPECT_EQ(this->Run(id).finished_unix_ms(), 0);
  this->clock_.Advance(absl::Seconds(10));
  ASSERT_TRUE(store
                  .TransitionRun(id, kFailed, "", "workload exited with code 1",
                                 this->clock_.Now())
                  .ok());
  v1::RunStatus run = this->Run(id);
  EXPECT_EQ(run.device_id(), "host-0");
  EXPECT_EQ(run.started_unix_ms(), absl::ToUnixMillis(t0 + absl::Seconds(2)));
  EXPECT_EQ(run.finished_unix_ms(), absl::ToUnixMillis(t0 + absl::Seconds(12)));
  EXPECT_EQ(run.reason(), "workload exited with code 1");
  EXPECT_EQ(run.created_unix_ms(), absl::ToUnixMillis(t0));

  auto history = store.GetRunHistory(id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 4u);  // creation, leased, running, failed
  EXPECT_EQ((*history)[1].from, kPending);
  EXPECT_EQ((*history)[1].to, kLeased);
  EXPECT_EQ((*history)[1].device_id, "host-0");
  EXPECT_EQ((*history)[1].at, t0);
  // Transitions that name no device record the run's.
  EXPECT_EQ((*history)[2].device_id, "host-0");
  EXPECT_EQ((*history)[2].reason, "");
  EXPECT_EQ((*history)[3].from, kRunning);
  EXPECT_EQ((*history)[3].to, kFailed);
  EXPECT_EQ((*history)[3].device_id, "host-0");
  EXPECT_EQ((*history)[3].reason, "workload exited with code 1");
  EXPECT_EQ((*history)[3].at, t0 + absl::Seconds(12));
  for (const RunStateChange& change : *history) EXPECT_EQ(change.run_id, id);
}

TYPED_TEST(StoreRunsTest, TimesAreKeptInWholeMilliseconds) {
  const int64_t id = this->CreateRuns(1)[0];
  this->clock_.Advance(absl::Microseconds(1500));
  const absl::Time at = this->clock_.Now();
  this->Move(id, {kLeased});
  auto history = this->store_->GetRunHistory(id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().at, absl::FromUnixMillis(absl::ToUnixMillis(at)));
}

TYPED_TEST(StoreRunsTest, RunningOnANamedDeviceRecordsThatDevice) {
  const int64_t id = this->CreateRuns(1)[0];
  this->Move(id, {kLeased}, "host-0");
  ASSERT_TRUE(
      this->store_
          ->TransitionRun(id, kRunning, "host-1", "", this->clock_.Now())
          .ok());
  EXPECT_EQ(this->Run(id).device_id(), "host-1");
  EXPECT_EQ(this->store_->GetRunHistory(id)->back().device_id, "host-1");
}

TYPED_TEST(StoreRunsTest, LeaseNeedsADevice) {
  const int64_t id = this->CreateRuns(1)[0];
  EXPECT_EQ(this->store_->TransitionRun(id, kLeased, "", "", this->clock_.Now())
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->Run(id).state(), kPending);
  EXPECT_EQ(this->HistorySize(id), 1u);
}

TYPED_TEST(StoreRunsTest, CancellingAPendingRunFinishesItWithTheReason) {
  const int64_t id = this->CreateRuns(1)[0];
  this->clock_.Advance(absl::Seconds(3));
  ASSERT_TRUE(this->store_
                  ->TransitionRun(id, kCancelled, "", "cancelled by the user",
                                  this->clock_.Now())
                  .ok());
  v1::RunStatus run = this->Run(id);
  EXPECT_EQ(run.state(), kCancelled);
  EXPECT_EQ(run.reason(), "cancelled by the user");
  EXPECT_EQ(run.device_id(), "");
  EXPECT_EQ(run.finished_unix_ms(), absl::ToUnixMillis(this->clock_.Now()));
}

TYPED_TEST(StoreRunsTest, RetryAfterFailureIncrementsAttemptAndClearsTheRun) {
  Store& store = *this->store_;
  const int64_t id = this->CreateRuns(1)[0];
  this->Move(id, {kLeased, kRunning});
  ASSERT_TRUE(store
                  .TransitionRun(id, kFailed, "",
                                 "agent host-0 disconnected during the run",
                                 this->clock_.Now())
                  .ok());
  ASSERT_TRUE(
      store.TransitionRun(id, kPending, "", "retry", this->clock_.Now()).ok());

  v1::RunStatus run = this->Run(id);
  EXPECT_EQ(run.state(), kPending);
  EXPECT_EQ(run.spec().attempt(), 2);
  EXPECT_EQ(run.device_id(), "");
  EXPECT_EQ(run.reason(), "");
  EXPECT_EQ(run.started_unix_ms(), 0);
  EXPECT_EQ(run.finished_unix_ms(), 0);
  // The failure stays in the history.
  auto history = *store.GetRunHistory(id);
  ASSERT_EQ(history.size(), 5u);
  EXPECT_EQ(history[3].reason, "agent host-0 disconnected during the run");
  EXPECT_EQ(history[3].device_id, "host-0");
  EXPECT_EQ(history[4].from, kFailed);
  EXPECT_EQ(history[4].to, kPending);
  EXPECT_EQ(history[4].reason, "retry");

  // The next attempt runs and fails again: attempt 3.
  this->Move(id, {kLeased, kFailed, kPending});
  EXPECT_EQ(this->Run(id).spec().attempt(), 3);
  EXPECT_THAT(this->PendingIds(10), ElementsAre(id));
  EXPECT_EQ(store.ListPendingRuns(10)->front().attempt(), 3);
}

TYPED_TEST(StoreRunsTest, ReturningALeaseKeepsTheAttemptAndClearsTheDevice) {
  Store& store = *this->store_;
  const int64_t id = this->CreateRuns(1)[0];
  ASSERT_TRUE(
      store.TransitionRun(id, kLeased, "host-0", "", this->clock_.Now()).ok());
  ASSERT_TRUE(
      store.TransitionRun(id, kPending, "", "agent busy", this->clock_.Now())
          .ok());
  EXPECT_EQ(this->Run(id).spec().attempt(), 1);
  EXPECT_EQ(this->Run(id).device_id(), "");
  EXPECT_EQ(this->Run(id).state(), kPending);
  auto history = store.GetRunHistory(id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().device_id, "host-0");  // whose lease it was
  EXPECT_EQ(history->back().reason, "agent busy");
}

TYPED_TEST(StoreRunsTest, PendingRunsComeOldestFirstUpToTheLimit) {
  Store& store = *this->store_;
  std::vector<int64_t> ids = this->CreateRuns(4);
  this->Move(ids[0], {kLeased});
  EXPECT_THAT(this->PendingIds(2), ElementsAre(ids[1], ids[2]));
  auto pending = store.ListPendingRuns(2);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ((*pending)[0].attempt(), 1);
  EXPECT_EQ((*pending)[0].workload().model(), "lenet5");
  EXPECT_EQ((*pending)[0].workload().batch_size(), 16);
  EXPECT_EQ((*pending)[0].sweep_id(), this->Run(ids[1]).spec().sweep_id());
  EXPECT_THAT(this->PendingIds(10), ElementsAre(ids[1], ids[2], ids[3]));
  EXPECT_THAT(this->PendingIds(0), IsEmpty());
  EXPECT_EQ(store.ListPendingRuns(-1).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A returned lease is pending again, in its place.
  this->Move(ids[0], {kPending});
  EXPECT_THAT(this->PendingIds(2), ElementsAre(ids[0], ids[1]));
}

// Runs placed on devices (RunSpec.devices) are served only to those
// devices; unplaced runs to every device.
TYPED_TEST(StoreRunsTest, PendingRunsPlacedOnDevicesGoOnlyToThem) {
  std::vector<v1::RunSpec> specs = MakeRuns(4);
  specs[1].add_devices("xa-01");
  specs[2].add_devices("xa-02");
  specs[3].add_devices("xa-01");
  specs[3].add_devices("xa-03");
  const std::vector<int64_t> ids = this->RunIds(this->AddSweep(specs));
  ASSERT_EQ(ids.size(), 4u);
  PendingFilter f;
  f.device_class = specs[0].device_class();
  f.runtimes = {specs[0].runtime()};
  f.models = {specs[0].workload().model()};
  f.datasets = {specs[0].workload().dataset()};
  f.max_cpu_cores = 64;
  EXPECT_THAT(this->PendingForIds(f), ElementsAre(ids[0]));
  f.device_ids = {"xa-01"};
  EXPECT_THAT(this->PendingForIds(f), ElementsAre(ids[0], ids[1], ids[3]));
  f.device_ids = {"xa-03"};
  EXPECT_THAT(this->PendingForIds(f), ElementsAre(ids[0], ids[3]));
  f.device_ids = {"xa-02", "xa-03"};
  EXPECT_THAT(this->PendingForIds(f), ElementsAre(ids[0], ids[2], ids[3]));
  // The placement comes back with the spec.
  EXPECT_THAT(this->Run(ids[3]).spec().devices(), ElementsAre("xa-01", "xa-03"));
}

// What ListPendingRunsFor serves: class, runtime, cores, and model and
// data set unless the run is a baseload run.
TYPED_TEST(StoreRunsTest, PendingRunsForADeviceFollowTheFilter) {
  std::vector<v1::RunSpec> specs;
  auto add = [&](auto change) {
    v1::RunSpec spec = MakeRuns(1)[0];
    spec.mutable_power_mode()->set_cpu_cores(2);
    change(&spec);
    specs.push_back(spec);
  };
  add([](v1::RunSpec*) {});                                      // 0 served
  add([](v1::RunSpec* s) { s->set_device_class("orin-agx"); });  // 1 class
  add([](v1::RunSpec* s) {
    s->set_runtime(v1::RUNTIME_CONTAINER);
  });  // 2 runtime
  add([](v1::RunSpec* s) { s->mutable_workload()->set_model("vgg11"); });  // 3
  add([](v1::RunSpec* s) {
    s->mutable_workload()->set_dataset("cifar10");
  });  // 4
  add([](v1::RunSpec* s) {
    s->mutable_power_mode()->set_cpu_cores(8);
  });                       // 5 cores
  add([](v1::RunSpec* s) {  // 6 baseload: no model or data set needed
    s->mutable_workload()->set_task(v1::TASK_BASELOAD);
    s->mutable_workload()->set_model("");
    s->mutable_workload()->set_dataset("");
  });
  add([](v1::RunSpec* s) {
    s->mutable_power_mode()->set_cpu_cores(4);
  });                       // 7 served
  add([](v1::RunSpec* s) {  // 8 infer of a second catalog entry: served
    s->mutable_workload()->set_task(v1::TASK_INFER);
    s->mutable_workload()->set_model("resnet18");
    s->mutable_workload()->set_dataset("cifar10");
  });
  add([](v1::RunSpec*
             s) {  // 9 model and data set are each checked, not as a pair
    s->mutable_workload()->set_model("resnet18");
  });
  add([](v1::RunSpec*) {});  // 10 leased below: not pending
  const std::vector<int64_t> ids = this->RunIds(this->AddSweep(specs));
  ASSERT_EQ(ids.size(), specs.size());
  this->Move(ids[10], {kLeased});

  PendingFilter f;
  f.device_class = "host";
  f.runtimes = {v1::RUNTIME_NATIVE};
  f.models = {"lenet5", "resnet18"};
  f.datasets = {"fashion-mnist", "cifar10"};
  f.max_cpu_cores = 4;
  EXPECT_THAT(this->PendingForIds(f),
              ElementsAre(ids[0], ids[4], ids[6], ids[7], ids[8], ids[9]));

  PendingFilter narrow = f;
  narrow.models = {"lenet5"};
  narrow.datasets = {"fashion-mnist"};
  EXPECT_THAT(this->PendingForIds(narrow), ElementsAre(ids[0], ids[6], ids[7]));

  // The spec comes back whole.
  auto specs_back = this->store_->ListPendingRunsFor(narrow, 1);
  ASSERT_TRUE(specs_back.ok()) << specs_back.status();
  ASSERT_EQ(specs_back->size(), 1u);
  EXPECT_EQ((*specs_back)[0].SerializeAsString(),
            this->Run(ids[0]).spec().SerializeAsString());

  // Both runtimes; more cores.
  PendingFilter wide = narrow;
  wide.runtimes = {v1::RUNTIME_CONTAINER, v1::RUNTIME_NATIVE};
  wide.max_cpu_cores = 8;
  EXPECT_THAT(this->PendingForIds(wide),
              ElementsAre(ids[0], ids[2], ids[5], ids[6], ids[7]));

  // `exclude` and the limit narrow it, oldest first.
  PendingFilter excluding = narrow;
  excluding.exclude = {ids[0], ids[7]};
  EXPECT_THAT(this->PendingForIds(excluding), ElementsAre(ids[6]));
  EXPECT_THAT(this->PendingForIds(narrow, 2), ElementsAre(ids[0], ids[6]));
  EXPECT_THAT(this->PendingForIds(narrow, 0), IsEmpty());
  EXPECT_EQ(this->store_->ListPendingRunsFor(narrow, -1).status().code(),
            absl::StatusCode::kInvalidArgument);

  // Without a model or data set only baseload runs; without a runtime none.
  PendingFilter no_catalog = narrow;
  no_catalog.models.clear();
  EXPECT_THAT(this->PendingForIds(no_catalog), ElementsAre(ids[6]));
  no_catalog = narrow;
  no_catalog.datasets.clear();
  EXPECT_THAT(this->PendingForIds(no_catalog), ElementsAre(ids[6]));
  PendingFilter no_runtime = narrow;
  no_runtime.runtimes.clear();
  EXPECT_THAT(this->PendingForIds(no_runtime), IsEmpty());
  PendingFilter other_class = narrow;
  other_class.device_class = "orin-agx";
  EXPECT_THAT(this->PendingForIds(other_class), ElementsAre(ids[1]));

  // A returned lease is served again.
  this->Move(ids[10], {kPending});
  EXPECT_THAT(this->PendingForIds(narrow),
              ElementsAre(ids[0], ids[6], ids[7], ids[10]));
}

TYPED_TEST(StoreRunsTest, ActiveRunsAreLeasedOrRunningOptionallyPerDevice) {
  std::vector<int64_t> ids = this->CreateRuns(5);
  this->Move(ids[0], {kLeased}, "host-0");
  this->Move(ids[1], {kLeased, kRunning}, "host-1");
  this->Move(ids[2], {kCancelled});
  this->Move(ids[3], {kLeased, kRunning, kDone}, "host-1");
  this->Move(ids[4], {kLeased, kRunning}, "host-0");
  EXPECT_THAT(this->ActiveIds(""), ElementsAre(ids[0], ids[1], ids[4]));
  EXPECT_THAT(this->ActiveIds("host-1"), ElementsAre(ids[1]));
  EXPECT_THAT(this->ActiveIds("host-0"), ElementsAre(ids[0], ids[4]));
  EXPECT_THAT(this->ActiveIds("host-9"), IsEmpty());
  auto all = this->store_->ListActiveRuns("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[0].state(), kLeased);
  EXPECT_EQ((*all)[1].state(), kRunning);
  EXPECT_EQ((*all)[1].device_id(), "host-1");
}

TYPED_TEST(StoreRunsTest, UnknownRunIsNotFound) {
  Store& store = *this->store_;
  this->CreateRuns(1);
  const absl::Time now = this->clock_.Now();
  EXPECT_EQ(store.GetRun(999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.TransitionRun(999, kLeased, "host-0", "", now).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.GetRunHistory(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.SaveAppliedMode(999, v1::AppliedPowerMode()).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.CountBatches(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.ListBatchSeqs(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.GetMinibatches(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.GetTelemetry(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.GetRunResult(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store.FinishRun(MakeResult(999, 1.0), kDone, "", now).code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
