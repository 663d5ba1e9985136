// Store conformance: ingest of data batches (idempotent per run, attempt
// and sequence number; any arrival order), the records read back, and the
// data of retried runs kept per attempt.
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

template <typename Factory>
class StoreIngestTest : public StoreConformanceTest<Factory> {
 protected:
  void SetUp() override {
    StoreConformanceTest<Factory>::SetUp();
    const std::vector<int64_t> ids = this->CreateRuns(2);
    ASSERT_EQ(ids.size(), 2u);
    run_id_ = ids[0];
    other_run_id_ = ids[1];
  }
  IngestOutcome Ingest(const v1::DataBatch& batch) {
    auto outcome = this->store_->IngestBatch(batch);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    return outcome.value_or(IngestOutcome::kDuplicate);
  }

  int64_t run_id_ = 0;
  int64_t other_run_id_ = 0;
};
TYPED_TEST_SUITE(StoreIngestTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreIngestTest, RecordsComeBackAsTheyWereSent) {
  const int64_t id = this->run_id_;
  v1::DataBatch batch = MakeBatch(id, 1, 3, 0);
  batch.mutable_minibatches(0)->set_page_cache_resident(0.25);
  batch.mutable_minibatches(1)->set_page_cache_resident(0.0);  // present, zero
  batch.mutable_minibatches(2)->set_epoch(1);
  // A sequence model's fields: tokens, and the generation latencies.
  batch.mutable_minibatches(0)->set_tokens(4096);
  batch.mutable_minibatches(2)->set_tokens(512);
  batch.mutable_minibatches(2)->set_ttft_s(0.125);
  batch.mutable_minibatches(2)->set_per_token_s(0.0);  // present, zero
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
  v1::Temperature* t = s->add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(41.5);
  s->set_mem_freq_hz(2133000000);
  v1::KernelCounters* k = s->mutable_counters();
  k->set_pgfault(1000);
  k->set_pgmajfault(7);
  k->set_nr_dirty(12);
  k->set_nr_writeback(3);
  k->set_pgpgout(64);
  k->set_nr_written(345);
  k->set_tenant_pgfault(99);
  k->set_tenant_pgmajfault(2);
  k->set_tenant_dirty_bytes(4096);
  // A sample with none of the extras, and one with empty counters.
  v1::TelemetrySample* plain = batch.add_telemetry();
  plain->set_t_s(0.2);
  plain->set_cpu_util(0.25);
  v1::TelemetrySample* zero_counters = batch.add_telemetry();
  zero_counters->set_t_s(0.3);
  zero_counters->mutable_counters();
  EXPECT_EQ(this->Ingest(batch), IngestOutcome::kStored);

  auto minibatches = this->store_->GetMinibatches(id);
  ASSERT_TRUE(minibatches.ok()) << minibatches.status();
  ASSERT_EQ(minibatches->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(
        MessageDifferencer::Equals((*minibatches)[i], batch.minibatches(i)))
        << (*minibatches)[i].DebugString();
  }
  EXPECT_TRUE((*minibatches)[1].has_page_cache_resident());
  auto telemetry = this->store_->GetTelemetry(id);
  ASSERT_TRUE(telemetry.ok()) << telemetry.status();
  ASSERT_EQ(telemetry->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(MessageDifferencer::Equals((*telemetry)[i], batch.telemetry(i)))
        << (*telemetry)[i].DebugString();
  }
  EXPECT_FALSE((*telemetry)[1].has_counters());
  EXPECT_TRUE((*telemetry)[2].has_counters());
}

TYPED_TEST(StoreIngestTest, SameBatchTwiceIsStoredOnce) {
  const int64_t id = this->run_id_;
  v1::DataBatch batch = MakeBatch(id, 1, 50, 10);
  EXPECT_EQ(this->Ingest(batch), IngestOutcome::kStored);
  EXPECT_EQ(this->Ingest(batch), IngestOutcome::kDuplicate);
  EXPECT_EQ(this->Minibatches(id), 50u);
  EXPECT_EQ(this->Telemetry(id), 10u);
  EXPECT_EQ(this->Batches(id), 1);

  // A resend with other row counts is recognized by (run, seq) and told
  // apart from an identical one; the first content is kept.
  EXPECT_EQ(this->Ingest(MakeBatch(id, 1, 7, 0)), IngestOutcome::kConflict);
  EXPECT_EQ(this->Minibatches(id), 50u);
  // attempt 0 (an agent that predates the field) and 1 are the same here.
  v1::DataBatch explicit_attempt = batch;
  explicit_attempt.set_attempt(1);
  EXPECT_EQ(this->Ingest(explicit_attempt), IngestOutcome::kDuplicate);
  // The next sequence number and another run's seq 1 are new.
  EXPECT_EQ(this->Ingest(MakeBatch(id, 2, 50, 10)), IngestOutcome::kStored);
  EXPECT_EQ(this->Ingest(MakeBatch(this->other_run_id_, 1, 5, 1)),
            IngestOutcome::kStored);
  EXPECT_EQ(this->Batches(id), 2);
  EXPECT_EQ(this->Minibatches(id), 100u);
  EXPECT_EQ(this->Minibatches(this->other_run_id_), 5u);
  EXPECT_EQ(this->Batches(this->other_run_id_), 1);
}

TYPED_TEST(StoreIngestTest, BatchesArriveInAnyOrderAndAreListedBySeq) {
  const int64_t id = this->run_id_;
  EXPECT_THAT(this->Seqs(id), IsEmpty());
  for (int64_t seq : {4, 1, 3}) {
    EXPECT_EQ(this->Ingest(MakeBatch(id, seq, 2, 2)), IngestOutcome::kStored)
        << seq;
  }
  // seq 2 is missing: the controller asks for it by what is listed.
  EXPECT_THAT(this->Seqs(id), ElementsAre(1, 3, 4));
  EXPECT_EQ(this->Batches(id), 3);
  EXPECT_EQ(this->Ingest(MakeBatch(id, 2, 2, 2)), IngestOutcome::kStored);
  EXPECT_EQ(this->Ingest(MakeBatch(id, 4, 2, 2)), IngestOutcome::kDuplicate);
  EXPECT_THAT(this->Seqs(id), ElementsAre(1, 2, 3, 4));
  // A batch without records counts as a batch.
  EXPECT_EQ(this->Ingest(MakeBatch(id, 5, 0, 0)), IngestOutcome::kStored);
  EXPECT_THAT(this->Seqs(id), ElementsAre(1, 2, 3, 4, 5));

  // Records come back in index order and telemetry in time order,
  // whatever order the batches came in.
  auto minibatches = this->store_->GetMinibatches(id);
  ASSERT_TRUE(minibatches.ok());
  ASSERT_EQ(minibatches->size(), 8u);
  for (size_t i = 0; i < minibatches->size(); ++i) {
    EXPECT_EQ((*minibatches)[i].index(), static_cast<int64_t>(i));
  }
  auto telemetry = this->store_->GetTelemetry(id);
  ASSERT_TRUE(telemetry.ok());
  ASSERT_EQ(telemetry->size(), 8u);
  for (size_t i = 1; i < telemetry->size(); ++i) {
    EXPECT_LT((*telemetry)[i - 1].t_s(), (*telemetry)[i].t_s());
  }
}

TYPED_TEST(StoreIngestTest,
           MinibatchesAreOrderedByTenantThenIndexTelemetryByTime) {
  const int64_t id = this->run_id_;
  v1::DataBatch batch;
  batch.set_run_id(id);
  batch.set_seq(1);
  // (tenant, index, loss) in arrival order; equal keys keep arrival order.
  const std::vector<std::tuple<int, int64_t, double>> sent = {
      {1, 0, 1.0}, {0, 2, 2.0}, {0, 0, 3.0},
      {1, 1, 4.0}, {0, 0, 5.0}, {0, 1, 6.0}};
  for (const auto& [tenant, index, loss] : sent) {
    v1::MinibatchRecord* r = batch.add_minibatches();
    r->set_tenant(tenant);
    r->set_index(index);
    r->set_loss(loss);
  }
  const double times[] = {0.5, 0.1, 0.3, 0.1, 0.2};
  for (int i = 0; i < 5; ++i) {
    v1::TelemetrySample* s = batch.add_telemetry();
    s->set_t_s(times[i]);
    s->set_cpu_util(i);  // the arrival order
  }
  EXPECT_EQ(this->Ingest(batch), IngestOutcome::kStored);
  auto minibatches = this->store_->GetMinibatches(id);
  ASSERT_TRUE(minibatches.ok());
  std::vector<double> losses;
  for (const v1::MinibatchRecord& r : *minibatches) losses.push_back(r.loss());
  EXPECT_THAT(losses, ElementsAre(3.0, 5.0, 6.0, 2.0, 1.0, 4.0));
  auto telemetry = this->store_->GetTelemetry(id);
  ASSERT_TRUE(telemetry.ok());
  std::vector<double> utils;
  for (const v1::TelemetrySample& s : *telemetry) utils.push_back(s.cpu_util());
  EXPECT_THAT(utils, ElementsAre(1.0, 3.0, 4.0, 2.0, 0.0));
}

// A twin's inference computes no loss: the record carries none and reads
// back with none (not 0); a loss of exactly 0 is a value and stays one.
TYPED_TEST(StoreIngestTest, AMinibatchWithoutLossReadsBackWithoutOne) {
  const int64_t id = this->run_id_;
  v1::DataBatch batch;
  batch.set_run_id(id);
  batch.set_seq(1);
  batch.add_minibatches()->set_index(0);  // no loss
  v1::MinibatchRecord* zero = batch.add_minibatches();
  zero->set_index(1);
  zero->set_loss(0);
  EXPECT_EQ(this->Ingest(batch), IngestOutcome::kStored);
  auto minibatches = this->store_->GetMinibatches(id);
  ASSERT_TRUE(minibatches.ok());
  ASSERT_EQ(minibatches->size(), 2u);
  EXPECT_FALSE((*minibatches)[0].has_loss());
  EXPECT_TRUE((*minibatches)[1].has_loss());
  EXPECT_EQ((*minibatches)[1].loss(), 0);
}

TYPED_TEST(StoreIngestTest, BatchForUnknownRunIsNotFoundAndStoresNothing) {
  auto outcome = this->store_->IngestBatch(MakeBatch(4242, 1, 5, 2));
  EXPECT_EQ(outcome.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(outcome.status().message(), HasSubstr("run 4242"));
  EXPECT_EQ(this->Batches(this->run_id_), 0);
  EXPECT_EQ(this->Batches(this->other_run_id_), 0);
}

TYPED_TEST(StoreIngestTest, MalformedBatchIsInvalidAndStoresNothing) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  auto no_seq = store.IngestBatch(MakeBatch(id, 0, 5, 0));
  EXPECT_EQ(no_seq.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_seq.status().message(), HasSubstr("seq"));
  EXPECT_EQ(store.IngestBatch(MakeBatch(id, -3, 5, 0)).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::DataBatch negative_attempt = MakeBatch(id, 1, 5, 0);
  negative_attempt.set_attempt(-1);
  EXPECT_EQ(store.IngestBatch(negative_attempt).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A measurement that is not a number.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  v1::DataBatch nan_loss = MakeBatch(id, 1, 5, 1);
  nan_loss.mutable_minibatches(3)->set_loss(nan);
  EXPECT_EQ(store.IngestBatch(nan_loss).status().code(),
            absl::StatusCode::kInvalidArgument);
  v1::DataBatch nan_time = MakeBatch(id, 1, 5, 2);
  nan_time.mutable_telemetry(1)->set_t_s(nan);
  EXPECT_EQ(store.IngestBatch(nan_time).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(this->Batches(id), 0);
  EXPECT_EQ(this->Minibatches(id), 0u);
  EXPECT_EQ(this->Telemetry(id), 0u);
  // Refused batches leave their seq free.
  EXPECT_EQ(this->Ingest(MakeBatch(id, 1, 5, 1)), IngestOutcome::kStored);
}

TYPED_TEST(StoreIngestTest, BatchesAreStoredWhateverTheRunsState) {
  const int64_t id = this->run_id_;
  EXPECT_EQ(this->Ingest(MakeBatch(id, 1, 2, 1)),
            IngestOutcome::kStored);  // pending
  this->Start(id);
  EXPECT_EQ(this->Ingest(MakeBatch(id, 2, 2, 1)), IngestOutcome::kStored);
  ASSERT_TRUE(
      this->store_
          ->FinishRun(MakeResult(id, 1.0), kDone, "", this->clock_.Now())
          .ok());
  EXPECT_EQ(this->Ingest(MakeBatch(id, 3, 2, 1)),
            IngestOutcome::kStored);  // late
  EXPECT_EQ(this->Minibatches(id), 6u);
  this->Move(this->other_run_id_, {kCancelled});
  EXPECT_EQ(this->Ingest(MakeBatch(this->other_run_id_, 1, 2, 1)),
            IngestOutcome::kStored);
}

TYPED_TEST(StoreIngestTest,
           RetryKeepsTheFailedAttemptsDataAndTheNewAttemptStartsAtSeqOne) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  v1::DataBatch first = MakeBatch(id, 1, 5, 2);
  first.set_attempt(1);
  EXPECT_EQ(this->Ingest(first), IngestOutcome::kStored);
  // attempt 0 (an agent that predates the field) is the current attempt.
  EXPECT_EQ(this->Ingest(MakeBatch(id, 2, 5, 2)), IngestOutcome::kStored);
  v1::RunResult failed;
  failed.set_run_id(id);
  failed.set_reason("workload exited with code 1");
  failed.set_exit_code(1);
  failed.set_duration_s(7.0);
  ASSERT_TRUE(
      store.FinishRun(failed, kFailed, failed.reason(), this->clock_.Now())
          .ok());
  ASSERT_TRUE(
      store.TransitionRun(id, kPending, "", "retry", this->clock_.Now()).ok());
  ASSERT_EQ(this->Run(id).spec().attempt(), 2);

  // The readers show the new (empty) attempt.
  EXPECT_EQ(this->Batches(id), 0);
  EXPECT_THAT(this->Seqs(id), IsEmpty());
  EXPECT_EQ(this->Minibatches(id), 0u);
  EXPECT_EQ(this->Telemetry(id), 0u);
  EXPECT_EQ(store.GetRunResult(id).status().code(),
            absl::StatusCode::kNotFound);

  // The new attempt numbers its batches from 1 without clashing.
  this->Start(id, "host-1");
  v1::DataBatch retry = MakeBatch(id, 1, 3, 1);
  retry.set_attempt(2);
  EXPECT_EQ(this->Ingest(retry), IngestOutcome::kStored);
  EXPECT_EQ(this->Ingest(retry), IngestOutcome::kDuplicate);
  EXPECT_EQ(this->Batches(id), 1);
  EXPECT_THAT(this->Seqs(id), ElementsAre(1));
  EXPECT_EQ(this->Minibatches(id), 3u);
  EXPECT_EQ(this->Telemetry(id), 1u);

  // The new attempt's result is its own.
  v1::RunResult done;
  done.set_run_id(id);
  done.set_ok(true);
  done.set_duration_s(9.0);
  ASSERT_TRUE(store.FinishRun(done, kDone, "", this->clock_.Now()).ok());
  EXPECT_EQ(store.GetRunResult(id)->duration_s(), 9.0);

  // Every attempt's records are in the export (store.h: ExportCsv).
  const std::vector<std::string> lines =
      this->ExportLines(this->Run(id).spec().sweep_id(), "minibatches");
  ASSERT_EQ(lines.size(), 1u + 10u + 3u);
  EXPECT_THAT(lines[1], ::testing::StartsWith(absl::StrCat(id, ",1,1,")));
  EXPECT_THAT(lines.back(), ::testing::StartsWith(absl::StrCat(id, ",2,1,")));
}

TYPED_TEST(StoreIngestTest,
           RerunOfACancelledRunTakesTheNextAttemptAndKeepsTheCancelledData) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  v1::DataBatch first = MakeBatch(id, 1, 4, 1);
  first.set_attempt(1);
  EXPECT_EQ(this->Ingest(first), IngestOutcome::kStored);
  ASSERT_TRUE(store
                  .TransitionRun(id, kCancelled, "", "cancelled by the user",
                                 this->clock_.Now())
                  .ok());
  ASSERT_TRUE(store
                  .TransitionRun(id, kPending, "", "rerun by the user",
                                 this->clock_.Now())
                  .ok());
  const v1::RunStatus run = this->Run(id);
  EXPECT_EQ(run.state(), kPending);
  EXPECT_EQ(run.spec().attempt(), 2);
  EXPECT_EQ(run.reason(), "");
  EXPECT_EQ(run.device_id(), "");
  // The readers show the new attempt; the cancelled one stays exported.
  EXPECT_EQ(this->Minibatches(id), 0u);
  this->Start(id, "host-1");
  v1::DataBatch again = MakeBatch(id, 1, 2, 1);
  again.set_attempt(2);
  EXPECT_EQ(this->Ingest(again), IngestOutcome::kStored);
  EXPECT_EQ(this->Minibatches(id), 2u);
  const std::vector<std::string> lines =
      this->ExportLines(run.spec().sweep_id(), "minibatches");
  ASSERT_EQ(lines.size(), 1u + 4u + 2u);
  EXPECT_THAT(lines[1], ::testing::StartsWith(absl::StrCat(id, ",1,1,")));
  EXPECT_THAT(lines.back(), ::testing::StartsWith(absl::StrCat(id, ",2,1,")));
}

TYPED_TEST(StoreIngestTest, BatchOfAnotherAttemptIsRefusedAndStoresNothing) {
  Store& store = *this->store_;
  const int64_t id = this->run_id_;
  this->Start(id);
  EXPECT_EQ(this->Ingest(MakeBatch(id, 1, 5, 1)), IngestOutcome::kStored);
  ASSERT_TRUE(store
                  .TransitionRun(id, kFailed, "",
                                 "agent host-0 disconnected during the run",
                                 this->clock_.Now())
                  .ok());
  ASSERT_TRUE(
      store.TransitionRun(id, kPending, "", "retry", this->clock_.Now()).ok());

  // A late batch of attempt 1 (new seq, and a resend of seq 1).
  for (int64_t seq : {2, 1}) {
    v1::DataBatch late = MakeBatch(id, seq, 5, 1);
    late.set_attempt(1);
    auto outcome = store.IngestBatch(late);
    EXPECT_EQ(outcome.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(
        outcome.status().message(),
        HasSubstr(absl::StrCat(
            "run ", id, " is on attempt 2; batch of attempt 1 not stored")));
  }
  // A batch claiming a future attempt is refused too.
  v1::DataBatch future = MakeBatch(id, 1, 5, 1);
  future.set_attempt(3);
  EXPECT_EQ(store.IngestBatch(future).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(this->Batches(id), 0);
  EXPECT_EQ(this->Minibatches(id), 0u);
  // Attempt 1 holds just the batch stored before the retry.
  const std::vector<std::string> lines =
      this->ExportLines(this->Run(id).spec().sweep_id(), "minibatches");
  EXPECT_EQ(lines.size(), 1u + 5u);
}

TYPED_TEST(StoreIngestTest, ThreadsSharingTheStoreLoseNoBatch) {
  constexpr int kBatches = 25;
  std::vector<int64_t> ids = this->CreateRuns(4);
  const int64_t sweep = this->Run(ids[0]).spec().sweep_id();
  std::vector<std::thread> threads;
  for (int64_t run_id : ids) {
    threads.emplace_back([this, run_id, sweep] {
      for (int seq = 1; seq <= kBatches; ++seq) {
        auto outcome = this->store_->IngestBatch(MakeBatch(run_id, seq, 10, 2));
        EXPECT_TRUE(outcome.ok()) << outcome.status();
        if (seq % 5 == 0) {  // a resend
          auto again = this->store_->IngestBatch(MakeBatch(run_id, seq, 10, 2));
          EXPECT_EQ(again.value_or(IngestOutcome::kStored),
                    IngestOutcome::kDuplicate);
        }
        // Readers interleave with writers.
        EXPECT_TRUE(this->store_->GetSweepStatus(sweep).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int64_t run_id : ids) {
    EXPECT_EQ(this->Batches(run_id), kBatches);
    EXPECT_EQ(this->Minibatches(run_id), 10u * kBatches);
    EXPECT_EQ(this->Telemetry(run_id), 2u * kBatches);
  }
}

}  // namespace
}  // namespace powersweep
