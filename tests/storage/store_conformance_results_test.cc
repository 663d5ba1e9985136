// Store conformance: finishing runs with their results (FinishRun,
// GetRunResult) and the power mode a platform applied (SaveAppliedMode).
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

template <typename Factory>
class StoreResultsTest : public StoreConformanceTest<Factory> {
 protected:
  void SetUp() override {
    StoreConformanceTest<Factory>::SetUp();
    sweep_id_ = this->AddSweep(MakeRuns(2), "results");
    const std::vector<int64_t> ids = this->RunIds(sweep_id_);
    ASSERT_EQ(ids.size(), 2u);
    run_id_ = ids[0];
    other_run_id_ = ids[1];
  }
  // The applied_mode_json cell of runs.csv for `run_id`.
  std::string AppliedModeCell(int64_t run_id) {
    const std::vector<std::string> lines = this->ExportLines(sweep_id_, "runs");
    for (size_t i = 1; i < lines.size(); ++i) {
      CsvRow row(lines[0], lines[i]);
      if (row["run_id"] == absl::StrCat(run_id))
        return row["applied_mode_json"];
    }
    return "<no row>";
  }

  int64_t sweep_id_ = 0;
  int64_t run_id_ = 0;
  int64_t other_run_id_ = 0;
};
TYPED_TEST_SUITE(StoreResultsTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreResultsTest, FinishRunStoresTheResultAndTheFinalState) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
  this->clock_.Advance(absl::Seconds(13));
  v1::RunResult result = MakeResult(id, 50.0);
  v1::WorkloadInfo* w = result.mutable_provenance()->mutable_workload();
  w->set_params(11181642);
  w->add_input_shape(3);
  w->mutable_storage()->set_kind("non-rotational");
  result.add_tenants()->set_tenant(1);
  result.set_energy_span_s(12.25);
  result.set_baseload_run_id(3);
  ASSERT_TRUE(store.FinishRun(result, kDone, "", this->clock_.Now()).ok());
  v1::RunStatus run = this->Run(id);
  EXPECT_EQ(run.state(), kDone);
  EXPECT_EQ(run.reason(), "");
  EXPECT_EQ(run.finished_unix_ms(), absl::ToUnixMillis(this->clock_.Now()));
  auto back = store.GetRunResult(id);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*back, result)) << back->DebugString();
  auto history = store.GetRunHistory(id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().from, kRunning);
  EXPECT_EQ(history->back().to, kDone);
  EXPECT_EQ(history->back().device_id, "host-0");
  EXPECT_EQ(history->back().at, this->clock_.Now());
  // The result's applied mode is the run's.
  EXPECT_THAT(this->AppliedModeCell(id), HasSubstr("\"cpu_cores\":4"));
}

TYPED_TEST(StoreResultsTest, FinishRunResentIsOkAndChangesNothing) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  ASSERT_TRUE(
      store.FinishRun(MakeResult(id, 50.0), kDone, "", this->clock_.Now())
          .ok());
  const v1::RunStatus before = this->Run(id);
  const size_t history = this->HistorySize(id);
  this->clock_.Advance(absl::Minutes(1));
  absl::Status again = store.FinishRun(MakeResult(id, 99.0), kFailed, "late",
                                       this->clock_.Now());
  EXPECT_TRUE(again.ok()) << again;
  EXPECT_EQ(this->Run(id).SerializeAsString(), before.SerializeAsString());
  EXPECT_DOUBLE_EQ(store.GetRunResult(id)->energy_j(), 50.0);
  EXPECT_EQ(this->HistorySize(id), history);
}

TYPED_TEST(StoreResultsTest, FinishRunFollowsTheTransitionRules) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  const absl::Time now = this->clock_.Now();
  // PENDING cannot finish: refused, nothing stored.
  absl::Status st = store.FinishRun(MakeResult(id, 1.0), kDone, "", now);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("pending"));
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(this->HistorySize(id), 1u);
  // LEASED cannot be done (it never ran) ...
  this->Move(id, {kLeased});
  EXPECT_EQ(store.FinishRun(MakeResult(id, 1.0), kDone, "", now).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
  // ... but may fail (the workload never started).
  v1::RunResult failed = MakeResult(id, 0.0);
  failed.set_ok(false);
  failed.set_reason("power mode could not be applied");
  ASSERT_TRUE(
      store.FinishRun(failed, kFailed, "power mode could not be applied", now)
          .ok());
  EXPECT_EQ(this->Run(id).state(), kFailed);
  EXPECT_EQ(this->Run(id).reason(), "power mode could not be applied");
  EXPECT_EQ(store.GetRunResult(id)->reason(),
            "power mode could not be applied");
  // Only DONE or FAILED are final states for a result.
  for (v1::RunState state :
       {kCancelled, kPending, kRunning, v1::RUN_STATE_UNSPECIFIED}) {
    EXPECT_EQ(
        store.FinishRun(MakeResult(this->other_run_id_, 1.0), state, "", now)
            .code(),
        absl::StatusCode::kInvalidArgument)
        << v1::RunState_Name(state);
  }
  EXPECT_EQ(store.FinishRun(MakeResult(777, 1.0), kDone, "", now).code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreResultsTest, CancelledRunTakesNoResult) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  this->Move(id, {kCancelled});
  EXPECT_EQ(store.FinishRun(MakeResult(id, 1.0), kDone, "", this->clock_.Now())
                .code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(this->Run(id).state(), kCancelled);
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreResultsTest, ResultWithoutANumberIsInvalidAndChangesNothing) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  v1::RunResult bad = MakeResult(id, 1.0);
  bad.set_duration_s(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(store.FinishRun(bad, kDone, "", this->clock_.Now()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->Run(id).state(), kRunning);
  EXPECT_EQ(this->HistorySize(id), 3u);
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(
      store.FinishRun(MakeResult(id, 1.0), kDone, "", this->clock_.Now()).ok());
}

TYPED_TEST(StoreResultsTest, EachAttemptHasItsOwnResult) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  v1::RunResult failed = MakeResult(id, 5.0);
  failed.set_ok(false);
  ASSERT_TRUE(
      store.FinishRun(failed, kFailed, "crashed", this->clock_.Now()).ok());
  this->Move(id, {kPending});
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);
  // A result resent now would be the new attempt's: refused while pending.
  EXPECT_EQ(
      store.FinishRun(failed, kFailed, "crashed", this->clock_.Now()).code(),
      absl::StatusCode::kFailedPrecondition);
  this->Start(id);
  ASSERT_TRUE(
      store.FinishRun(MakeResult(id, 7.0), kDone, "", this->clock_.Now()).ok());
  EXPECT_DOUBLE_EQ(store.GetRunResult(id)->energy_j(), 7.0);
  EXPECT_TRUE(store.GetRunResult(id)->ok());
}

TYPED_TEST(StoreResultsTest, AppliedModeIsOverwrittenAndVisibleInTheExport) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  EXPECT_EQ(this->AppliedModeCell(id), "");
  v1::AppliedPowerMode mode;
  mode.mutable_actual()->set_cpu_cores(2);
  mode.set_cores_provenance(v1::PROVENANCE_EMULATED);
  ASSERT_TRUE(store.SaveAppliedMode(id, mode).ok());
  mode.mutable_actual()->set_cpu_cores(3);
  ASSERT_TRUE(store.SaveAppliedMode(id, mode).ok());  // overwrite
  EXPECT_THAT(this->AppliedModeCell(id), HasSubstr("\"cpu_cores\":3"));
  EXPECT_EQ(this->AppliedModeCell(this->other_run_id_), "");
  // A returned lease keeps it; a retry starts without one.
  this->Move(id, {kLeased, kPending});
  EXPECT_THAT(this->AppliedModeCell(id), HasSubstr("\"cpu_cores\":3"));
  this->Move(id, {kLeased, kFailed, kPending});
  EXPECT_EQ(this->AppliedModeCell(id), "");
}

TYPED_TEST(StoreResultsTest, AppliedModeOfAnActiveRunIsStored) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Move(id, PathTo(kRunning));
  v1::AppliedPowerMode mode;
  mode.mutable_actual()->set_cpu_cores(2);
  ASSERT_TRUE(store.SaveAppliedMode(id, mode).ok());
  EXPECT_THAT(this->AppliedModeCell(id), HasSubstr("\"cpu_cores\":2"));
}

TYPED_TEST(StoreResultsTest, AppliedModeOfAnEndedRunIsNotChanged) {
  Store& store = *this->store_;
  for (v1::RunState end : {kDone, kFailed, kCancelled}) {
    SCOPED_TRACE(StateText(end));
    const int64_t id = end == kDone ? this->run_id_ : this->other_run_id_;
    if (end == kCancelled) {
      // other_run_id_ failed in the previous round: a retry makes it
      // pending again.
      this->Move(id, {kPending});
    }
    v1::AppliedPowerMode mode;
    mode.mutable_actual()->set_cpu_cores(2);
    ASSERT_TRUE(store.SaveAppliedMode(id, mode).ok());
    this->Move(id, PathTo(end));
    mode.mutable_actual()->set_cpu_cores(3);
    EXPECT_EQ(store.SaveAppliedMode(id, mode).code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(this->AppliedModeCell(id), HasSubstr("\"cpu_cores\":2"));
  }
}

}  // namespace
}  // namespace powersweep
