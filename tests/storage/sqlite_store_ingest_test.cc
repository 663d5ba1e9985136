// SqliteStore: idempotent batch ingest, records read back, run results.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("ingest"), MakeRuns(2), clock_.Now());
    ASSERT_TRUE(sweep.ok());
    auto runs = store_->ListRuns(*sweep);
    run_id_ = (*runs)[0].spec().run_id();
    other_run_id_ = (*runs)[1].spec().run_id();
  }
  void StartRun(int64_t id) {
    ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", clock_.Now()).ok());
    ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", clock_.Now()).ok());
  }
  v1::RunResult Result(int64_t id, double energy_j) {
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(true);
    result.set_duration_s(12.5);
    result.set_energy_j(energy_j);
    result.set_energy_provenance(v1::PROVENANCE_MODELED);
    result.mutable_provenance()->set_framework("libtorch");
    result.mutable_provenance()->set_framework_version("1.13.0");
    result.mutable_provenance()->set_threads(4);
    result.mutable_applied_mode()->mutable_actual()->set_cpu_cores(4);
    return result;
  }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t run_id_ = 0;
  int64_t other_run_id_ = 0;
};

TEST_F(IngestTest, RecordsComeBackAsTheyWereSent) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 3, 0);
  v1::TelemetrySample* s = batch.add_telemetry();
  s->set_t_s(0.1);
  s->set_cpu_util(0.3);
  s->add_cores()->set_util(0.1);
  s->mutable_cores(0)->set_freq_khz(1'200'000);
  s->add_cores()->set_util(1.0 / 3.0);
  s->mutable_cores(1)->set_freq_khz(2'200'000);
  s->set_mem_used_bytes(123456789);
  s->set_mem_total_bytes(987654321);
  s->set_proc_cpu_s(1.75);
  s->set_proc_rss_bytes(4096);
  s->set_gpu_util(0.5);
  s->set_gpu_freq_hz(1'300'000'000);
  s->set_power_mw(4321.5);
  s->set_power_provenance(v1::PROVENANCE_MEASURED);
  v1::RailSample* rail = s->add_rails();
  rail->set_name("VDD_CPU_GPU_CV");
  rail->set_power_mw(2000);
  rail->set_provenance(v1::PROVENANCE_MEASURED);
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);

  auto minibatches = store_->GetMinibatches(run_id_);
  ASSERT_TRUE(minibatches.ok()) << minibatches.status();
  ASSERT_EQ(minibatches->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals((*minibatches)[i], batch.minibatches(i)))
        << (*minibatches)[i].DebugString();
  }
  auto telemetry = store_->GetTelemetry(run_id_);
  ASSERT_TRUE(telemetry.ok()) << telemetry.status();
  ASSERT_EQ(telemetry->size(), 1u);
  EXPECT_TRUE(MessageDifferencer::Equals((*telemetry)[0], *s)) << (*telemetry)[0].DebugString();

  // Flat, human-readable columns for sqlite3 / pandas users.
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT core_freq_khz FROM telemetry"), "1200000,2200000");
  EXPECT_EQ(raw.Text("SELECT power_provenance FROM telemetry"), "measured");
}

TEST_F(IngestTest, SameBatchTwiceIsStoredOnce) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 50, 10);
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);
  auto again = store_->IngestBatch(batch);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, IngestOutcome::kDuplicate);
  EXPECT_EQ(store_->GetMinibatches(run_id_)->size(), 50u);
  EXPECT_EQ(store_->GetTelemetry(run_id_)->size(), 10u);
  EXPECT_EQ(*store_->CountBatches(run_id_), 1);

  // A resend with different content is still recognized by (run, seq).
  v1::DataBatch changed = MakeBatch(run_id_, 1, 7, 0);
  EXPECT_EQ(store_->IngestBatch(changed).value(), IngestOutcome::kDuplicate);
  EXPECT_EQ(store_->GetMinibatches(run_id_)->size(), 50u);
  // The next sequence number and another run's seq 1 are new.
  EXPECT_EQ(store_->IngestBatch(MakeBatch(run_id_, 2, 50, 10)).value(),
            IngestOutcome::kStored);
  EXPECT_EQ(store_->IngestBatch(MakeBatch(other_run_id_, 1, 5, 1)).value(),
            IngestOutcome::kStored);
  EXPECT_EQ(*store_->CountBatches(run_id_), 2);
  EXPECT_EQ(store_->GetMinibatches(run_id_)->size(), 100u);
  EXPECT_EQ(store_->GetMinibatches(other_run_id_)->size(), 5u);
}

TEST_F(IngestTest, BatchForUnknownRunIsNotFoundAndStoresNothing) {
  auto outcome = store_->IngestBatch(MakeBatch(4242, 1, 5, 2));
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(outcome.status().message(), HasSubstr("run 4242"));
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM batches"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry"), 0);
}

TEST_F(IngestTest, BatchWithoutSequenceNumberIsInvalid) {
  auto outcome = store_->IngestBatch(MakeBatch(run_id_, 0, 5, 0));
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(outcome.status().message(), HasSubstr("seq"));
  EXPECT_EQ(*store_->CountBatches(run_id_), 0);
}

TEST_F(IngestTest, FinishRunStoresTheResultAndTheFinalState) {
  StartRun(run_id_);
  EXPECT_EQ(store_->GetRunResult(run_id_).status().code(), absl::StatusCode::kNotFound);
  clock_.Advance(absl::Seconds(13));
  ASSERT_TRUE(store_->FinishRun(Result(run_id_, 50.0), v1::RUN_STATE_DONE, "", clock_.Now())
                  .ok());
  auto run = store_->GetRun(run_id_);
  EXPECT_EQ(run->state(), v1::RUN_STATE_DONE);
  EXPECT_EQ(run->finished_unix_ms(), absl::ToUnixMillis(clock_.Now()));
  auto result = store_->GetRunResult(run_id_);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*result, Result(run_id_, 50.0)));
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT framework_version || '/' || energy_provenance FROM run_results"),
            "1.13.0/modeled");
  EXPECT_THAT(raw.Text(absl::StrCat("SELECT applied_mode_json FROM runs WHERE run_id = ",
                                    run_id_)),
              HasSubstr("cpu_cores"));
}

TEST_F(IngestTest, FinishRunResentIsOkAndChangesNothing) {
  StartRun(run_id_);
  ASSERT_TRUE(store_->FinishRun(Result(run_id_, 50.0), v1::RUN_STATE_DONE, "", clock_.Now())
                  .ok());
  const size_t history = store_->GetRunHistory(run_id_)->size();
  clock_.Advance(absl::Minutes(1));
  absl::Status again =
      store_->FinishRun(Result(run_id_, 99.0), v1::RUN_STATE_FAILED, "late", clock_.Now());
  EXPECT_TRUE(again.ok()) << again;
  EXPECT_EQ(store_->GetRun(run_id_)->state(), v1::RUN_STATE_DONE);
  EXPECT_EQ(store_->GetRun(run_id_)->reason(), "");
  EXPECT_DOUBLE_EQ(store_->GetRunResult(run_id_)->energy_j(), 50.0);
  EXPECT_EQ(store_->GetRunHistory(run_id_)->size(), history);
}

TEST_F(IngestTest, FinishRunFollowsTheTransitionRules) {
  // PENDING cannot finish: refused, nothing stored.
  absl::Status st =
      store_->FinishRun(Result(run_id_, 1.0), v1::RUN_STATE_DONE, "", clock_.Now());
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("pending"));
  EXPECT_EQ(store_->GetRunResult(run_id_).status().code(), absl::StatusCode::kNotFound);
  // LEASED may fail (the workload never started).
  ASSERT_TRUE(store_->TransitionRun(run_id_, v1::RUN_STATE_LEASED, "host-0", "",
                                    clock_.Now())
                  .ok());
  v1::RunResult failed = Result(run_id_, 0.0);
  failed.set_ok(false);
  failed.set_reason("power mode could not be applied");
  ASSERT_TRUE(store_->FinishRun(failed, v1::RUN_STATE_FAILED,
                                "power mode could not be applied", clock_.Now())
                  .ok());
  EXPECT_EQ(store_->GetRun(run_id_)->state(), v1::RUN_STATE_FAILED);
  EXPECT_EQ(store_->GetRun(run_id_)->reason(), "power mode could not be applied");
  // Only DONE or FAILED are final states for a result.
  EXPECT_EQ(store_->FinishRun(Result(other_run_id_, 1.0), v1::RUN_STATE_CANCELLED, "",
                              clock_.Now())
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      store_->FinishRun(Result(777, 1.0), v1::RUN_STATE_DONE, "", clock_.Now()).code(),
      absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
