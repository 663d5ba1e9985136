// SqliteStore: run state transitions, history, retries and run queries.
#include <set>
#include <utility>

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
constexpr v1::RunState C = v1::RUN_STATE_CANCELLED;

// How to reach each state from PENDING.
std::vector<v1::RunState> PathTo(v1::RunState s) {
  switch (s) {
    case L: return {L};
    case R: return {L, R};
    case D: return {L, R, D};
    case F: return {L, F};
    case C: return {C};
    default: return {};
  }
}

class RunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
  }
  // Creates a sweep of `n` runs and returns their ids.
  std::vector<int64_t> CreateRuns(int n) {
    auto sweep = store_->CreateSweep(MakeSpec("runs"), MakeRuns(n), clock_.Now());
    EXPECT_TRUE(sweep.ok()) << sweep.status();
    std::vector<int64_t> ids;
    auto runs = store_->ListRuns(*sweep);
    EXPECT_TRUE(runs.ok()) << runs.status();
    for (const auto& run : *runs) ids.push_back(run.spec().run_id());
    return ids;
  }
  v1::RunStatus Run(int64_t id) { return *store_->GetRun(id); }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
};

TEST_F(RunsTest, EveryTransitionIsAllowedOrRefusedExactlyAsStoreHSays) {
  const std::set<std::pair<v1::RunState, v1::RunState>> allowed = {
      {P, L}, {P, C}, {L, R}, {L, P}, {L, F}, {L, C},
      {R, D}, {R, F}, {R, C}, {F, P}};
  const std::vector<v1::RunState> states = {P, L, R, D, F, C};
  std::vector<int64_t> ids = CreateRuns(static_cast<int>(states.size() * states.size()));
  size_t next = 0;
  for (v1::RunState from : states) {
    for (v1::RunState to : states) {
      const int64_t id = ids[next++];
      for (v1::RunState step : PathTo(from)) {
        ASSERT_TRUE(store_->TransitionRun(id, step, "host-0", "", clock_.Now()).ok());
      }
      ASSERT_EQ(Run(id).state(), from);
      const size_t history_before = store_->GetRunHistory(id)->size();
      absl::Status st = store_->TransitionRun(id, to, "host-1", "why", clock_.Now());
      const std::string label = absl::StrCat(v1::RunState_Name(from), " -> ", v1::RunState_Name(to));
      if (allowed.count({from, to})) {
        EXPECT_TRUE(st.ok()) << label << ": " << st;
        EXPECT_EQ(Run(id).state(), to) << label;
        EXPECT_EQ(store_->GetRunHistory(id)->size(), history_before + 1) << label;
      } else {
        EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition) << label << ": " << st;
        EXPECT_EQ(Run(id).state(), from) << label;
        EXPECT_EQ(store_->GetRunHistory(id)->size(), history_before) << label;
      }
    }
  }
}

TEST_F(RunsTest, RefusedTransitionNamesTheRunAndBothStates) {
  const int64_t id = CreateRuns(1)[0];
  for (v1::RunState step : PathTo(D)) {
    ASSERT_TRUE(store_->TransitionRun(id, step, "host-0", "", clock_.Now()).ok());
  }
  absl::Status st = store_->TransitionRun(id, R, "host-0", "", clock_.Now());
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(), absl::StrCat("run ", id, " is done and cannot move to running"));
}

TEST_F(RunsTest, TransitionsSetDeviceTimesAndReason) {
  const int64_t id = CreateRuns(1)[0];
  const absl::Time t0 = clock_.Now();
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-0", "", clock_.Now()).ok());
  EXPECT_EQ(Run(id).device_id(), "host-0");
  clock_.Advance(absl::Seconds(2));
  ASSERT_TRUE(store_->TransitionRun(id, R, "", "", clock_.Now()).ok());
  EXPECT_EQ(Run(id).device_id(), "host-0");
  EXPECT_EQ(Run(id).started_unix_ms(), absl::ToUnixMillis(t0 + absl::Seconds(2)));
  clock_.Advance(absl::Seconds(10));
  ASSERT_TRUE(store_->TransitionRun(id, F, "", "workload exited with code 1",
                                    clock_.Now())
                  .ok());
  v1::RunStatus run = Run(id);
  EXPECT_EQ(run.finished_unix_ms(), absl::ToUnixMillis(t0 + absl::Seconds(12)));
  EXPECT_EQ(run.reason(), "workload exited with code 1");
  EXPECT_EQ(run.created_unix_ms(), absl::ToUnixMillis(t0));

  auto history = store_->GetRunHistory(id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 4u);  // creation, leased, running, failed
  EXPECT_EQ((*history)[1].from, P);
  EXPECT_EQ((*history)[1].to, L);
  EXPECT_EQ((*history)[2].device_id, "host-0");
  EXPECT_EQ((*history)[3].to, F);
  EXPECT_EQ((*history)[3].reason, "workload exited with code 1");
  EXPECT_EQ((*history)[3].at, t0 + absl::Seconds(12));
}

TEST_F(RunsTest, LeaseNeedsADevice) {
  const int64_t id = CreateRuns(1)[0];
  EXPECT_EQ(store_->TransitionRun(id, L, "", "", clock_.Now()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Run(id).state(), P);
}

TEST_F(RunsTest, RetryAfterFailureIncrementsAttemptAndClearsTheDevice) {
  const int64_t id = CreateRuns(1)[0];
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, R, "", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, F, "", "agent host-0 disconnected during the run",
                                    clock_.Now())
                  .ok());
  ASSERT_TRUE(store_->TransitionRun(id, P, "", "retry", clock_.Now()).ok());

  v1::RunStatus run = Run(id);
  EXPECT_EQ(run.state(), P);
  EXPECT_EQ(run.spec().attempt(), 2);
  EXPECT_EQ(run.device_id(), "");
  EXPECT_EQ(run.started_unix_ms(), 0);
  // The failure stays in the history.
  auto history = *store_->GetRunHistory(id);
  ASSERT_EQ(history.size(), 5u);
  EXPECT_EQ(history[3].reason, "agent host-0 disconnected during the run");
  EXPECT_EQ(history[3].device_id, "host-0");
}

TEST_F(RunsTest, ReturningALeaseKeepsTheAttemptAndClearsTheDevice) {
  const int64_t id = CreateRuns(1)[0];
  ASSERT_TRUE(store_->TransitionRun(id, L, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(id, P, "", "agent busy", clock_.Now()).ok());
  EXPECT_EQ(Run(id).spec().attempt(), 1);
  EXPECT_EQ(Run(id).device_id(), "");
}

TEST_F(RunsTest, PendingRunsComeOldestFirstUpToTheLimit) {
  std::vector<int64_t> ids = CreateRuns(4);
  ASSERT_TRUE(store_->TransitionRun(ids[0], L, "host-0", "", clock_.Now()).ok());
  auto pending = store_->ListPendingRuns(2);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 2u);
  EXPECT_EQ((*pending)[0].run_id(), ids[1]);
  EXPECT_EQ((*pending)[1].run_id(), ids[2]);
  EXPECT_EQ((*pending)[0].attempt(), 1);
  EXPECT_EQ((*pending)[0].workload().model(), "lenet5");
  EXPECT_EQ(store_->ListPendingRuns(10)->size(), 3u);
  EXPECT_EQ(store_->ListPendingRuns(-1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(RunsTest, ActiveRunsAreLeasedOrRunningOptionallyPerDevice) {
  std::vector<int64_t> ids = CreateRuns(4);
  ASSERT_TRUE(store_->TransitionRun(ids[0], L, "host-0", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(ids[1], L, "host-1", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(ids[1], R, "", "", clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(ids[2], C, "", "user", clock_.Now()).ok());
  auto all = store_->ListActiveRuns("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].spec().run_id(), ids[0]);
  EXPECT_EQ((*all)[1].state(), R);
  auto host1 = store_->ListActiveRuns("host-1");
  ASSERT_EQ(host1->size(), 1u);
  EXPECT_EQ((*host1)[0].spec().run_id(), ids[1]);
}

TEST_F(RunsTest, UnknownRunIsNotFound) {
  CreateRuns(1);
  EXPECT_EQ(store_->GetRun(999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->TransitionRun(999, L, "host-0", "", clock_.Now()).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->GetRunHistory(999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->SaveAppliedMode(999, v1::AppliedPowerMode()).code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RunsTest, AppliedModeIsStoredAsJson) {
  const int64_t id = CreateRuns(1)[0];
  v1::AppliedPowerMode mode;
  mode.mutable_actual()->set_cpu_cores(2);
  mode.set_cores_provenance(v1::PROVENANCE_EMULATED);
  ASSERT_TRUE(store_->SaveAppliedMode(id, mode).ok());
  mode.mutable_actual()->set_cpu_cores(3);
  ASSERT_TRUE(store_->SaveAppliedMode(id, mode).ok());  // overwrite
  RawConnection raw(path_);
  EXPECT_THAT(raw.Text(absl::StrCat("SELECT applied_mode_json FROM runs WHERE run_id = ",
                                    id)),
              HasSubstr("\"cpu_cores\":3"));
}

}  // namespace
}  // namespace powersweep
