// Store conformance: what a sweep's tables read at scale: the record
// aggregates of each run's current attempt (equal to the records read
// back), the results of a sweep in one read, and the baseload runs of a
// device.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "storage/record_aggregates.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::IsEmpty;

// Varied records: two tenants, samples out of time order across batches,
// samples without a power reading, mixed provenance.
v1::DataBatch VariedBatch(int64_t run_id, int64_t seq) {
  v1::DataBatch batch;
  batch.set_run_id(run_id);
  batch.set_seq(seq);
  for (int i = 0; i < 7; ++i) {
    v1::MinibatchRecord r = MakeMinibatch(seq * 10 + (6 - i));
    r.set_tenant(i % 2);
    r.set_e2e_s(0.1 + 0.013 * i + 0.001 * seq);
    r.set_stall_s(0.01 * i);
    r.set_compute_s(0.05 + 0.007 * i);
    r.set_samples(16 + i);
    r.set_loss(3.0 / (1 + i + seq));
    // Some minibatches of a sequence model: tokens, and on some of those
    // the generation latencies.
    if (i >= 3) r.set_tokens(128 * (16 + i));
    if (i >= 5) {
      r.set_ttft_s(0.2 + 0.01 * i);
      r.set_per_token_s(0.02 + 0.001 * seq);
    }
    *batch.add_minibatches() = r;
  }
  for (int i = 0; i < 9; ++i) {
    v1::TelemetrySample* s = batch.add_telemetry();
    s->set_t_s(0.1 * (9 - i) + (seq % 2 == 0 ? 0.0 : 0.55));
    s->set_cpu_util(0.1 * i + 0.03 * seq);
    s->set_proc_rss_bytes(1000 * (i + seq));
    if (i % 3 != 0) s->set_power_mw(4000 + 37.5 * i + seq);
    s->set_power_provenance(i == 4 ? v1::PROVENANCE_MODELED
                                   : v1::PROVENANCE_MEASURED);
  }
  return batch;
}

// The aggregates of the records as read back, fed the way the run summary
// feeds them.
RecordAggregates FromRecords(Store* store, int64_t run_id) {
  RecordAggregator agg;
  const auto mb = store->GetMinibatches(run_id);
  const auto tel = store->GetTelemetry(run_id);
  EXPECT_TRUE(mb.ok() && tel.ok());
  if (!mb.ok() || !tel.ok()) return agg.Finish();
  for (const v1::MinibatchRecord& r : *mb) {
    if (r.warmup()) continue;  // warm-up is left out of the aggregates
    agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(),
                     r.has_loss(), r.loss());
    agg.AddTokens(r.tokens(), r.has_ttft_s() ? r.ttft_s() : -1,
                  r.has_per_token_s() ? r.per_token_s() : -1);
  }
  for (const v1::TelemetrySample& t : *tel) {
    agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
    if (t.power_mw() > 0)
      agg.AddPowerReading(t.t_s(), t.power_mw(), t.power_provenance());
  }
  return agg.Finish();
}

void ExpectSame(const RecordAggregates& got, const RecordAggregates& want) {
  EXPECT_TRUE(MessageDifferencer::Equals(got.summary, want.summary))
      << "got " << got.summary.ShortDebugString() << "\nwant "
      << want.summary.ShortDebugString();
  EXPECT_EQ(got.power_span_s, want.power_span_s);
}

template <typename Factory>
class StoreTablesTest : public StoreConformanceTest<Factory> {
 protected:
  void SetUp() override {
    StoreConformanceTest<Factory>::SetUp();
    sweep_ = this->AddSweep(MakeRuns(3), "s");
    ids_ = this->RunIds(sweep_);
    ASSERT_EQ(ids_.size(), 3u);
  }
  void Finish(int64_t id, v1::RunState state = kDone) {
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(state == kDone);
    result.set_duration_s(12.5);
    ASSERT_TRUE(
        this->store_->FinishRun(result, state, "", this->clock_.Now()).ok());
  }
  void Ingest(const v1::DataBatch& batch) {
    auto outcome = this->store_->IngestBatch(batch);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
  }

  int64_t sweep_ = 0;
  std::vector<int64_t> ids_;
};
TYPED_TEST_SUITE(StoreTablesTest, StoreImplementations,
                 StoreImplementationNames);

TYPED_TEST(StoreTablesTest, SweepAggregatesEqualTheRecordsReadBack) {
  Store* store = this->store_.get();
  const std::vector<int64_t>& ids = this->ids_;
  this->Start(ids[0]);
  this->Start(ids[1]);
  for (int64_t seq = 1; seq <= 3; ++seq) {
    this->Ingest(VariedBatch(ids[0], seq));
    this->Ingest(VariedBatch(ids[1], seq));
  }
  this->Finish(ids[0]);  // finished; ids[1] still running; ids[2] has nothing

  auto aggs = store->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  ASSERT_EQ(aggs->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*aggs)[i].run_id, ids[i]);
    EXPECT_EQ((*aggs)[i].attempt, 1);
    ExpectSame((*aggs)[i].aggregates, FromRecords(store, ids[i]));
  }
  const v1::RunSummary& s = (*aggs)[0].aggregates.summary;
  EXPECT_EQ(s.minibatches(), 21);
  EXPECT_EQ(s.telemetry_samples(), 27);
  EXPECT_GT(s.energy_j(), 0);
  EXPECT_EQ(s.energy_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_GT((*aggs)[0].aggregates.power_span_s, 0);
  // 12 of the 21 minibatches carry tokens; 6 of them latencies.
  EXPECT_GT(s.tokens_per_s(), 0);
  EXPECT_NEAR(s.mean_ttft_s(), 0.255, 1e-9);
  EXPECT_NEAR(s.mean_per_token_s(), 0.022, 1e-9);
  EXPECT_EQ((*aggs)[2].aggregates.summary.minibatches(), 0);
  EXPECT_EQ((*aggs)[2].aggregates.summary.ByteSizeLong(), 0u);
}

TYPED_TEST(StoreTablesTest, WarmupMinibatchesAreKeptButLeftOutOfAggregates) {
  const int64_t id = this->ids_[0];
  this->Start(id);
  v1::DataBatch batch;
  batch.set_run_id(id);
  batch.set_seq(1);
  for (int i = 0; i < 5; ++i) {
    v1::MinibatchRecord* r = batch.add_minibatches();
    r->set_index(i);
    r->set_samples(32);
    r->set_loss(2.0);
    const bool warmup = i < 2;  // slow first minibatches (CUDA start-up)
    r->set_e2e_s(warmup ? 0.8 : 0.1);
    r->set_compute_s(warmup ? 0.7 : 0.05);
    r->set_t_start_s(i);
    r->set_h2d_s(0.01);
    r->set_warmup(warmup);
  }
  this->Ingest(batch);
  this->Finish(id);
  auto aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  const v1::RunSummary& s = (*aggs)[0].aggregates.summary;
  EXPECT_EQ(s.minibatches(), 3);
  EXPECT_DOUBLE_EQ(s.mean_minibatch_s(), 0.1);
  EXPECT_DOUBLE_EQ(s.mean_compute_s(), 0.05);
  ExpectSame((*aggs)[0].aggregates, FromRecords(this->store_.get(), id));
  // The records themselves are all kept, flagged, with their copy times.
  auto mb = this->store_->GetMinibatches(id);
  ASSERT_TRUE(mb.ok()) << mb.status();
  ASSERT_EQ(mb->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*mb)[i].warmup(), i < 2) << "minibatch " << i;
    EXPECT_DOUBLE_EQ((*mb)[i].h2d_s(), 0.01);
  }
}

TYPED_TEST(StoreTablesTest, RecordsArrivingAfterTheFinishAreCounted) {
  const int64_t id = this->ids_[0];
  this->Start(id);
  this->Ingest(VariedBatch(id, 1));
  this->Finish(id);
  this->Ingest(VariedBatch(id, 2));
  auto aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 14);
  ExpectSame((*aggs)[0].aggregates, FromRecords(this->store_.get(), id));
}

TYPED_TEST(StoreTablesTest, FailedAndCancelledRunsHaveAggregatesToo) {
  this->Start(this->ids_[0]);
  this->Ingest(VariedBatch(this->ids_[0], 1));
  this->Finish(this->ids_[0], kFailed);
  this->Start(this->ids_[1]);
  this->Ingest(VariedBatch(this->ids_[1], 2));
  this->Move(this->ids_[1], {kCancelled});
  auto aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ((*aggs)[i].aggregates.summary.minibatches(), 7);
    ExpectSame((*aggs)[i].aggregates,
               FromRecords(this->store_.get(), this->ids_[i]));
  }
}

TYPED_TEST(StoreTablesTest, ARetryShowsTheNewAttempt) {
  const int64_t id = this->ids_[0];
  this->Start(id);
  this->Ingest(VariedBatch(id, 1));
  this->Move(id, {kFailed});
  auto aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 7);
  this->Move(id, {kPending});
  aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].attempt, 2);
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 0);
  this->Start(id);
  v1::DataBatch second = VariedBatch(id, 1);
  second.set_attempt(2);
  this->Ingest(second);
  aggs = this->store_->GetSweepAggregates(this->sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 7);
  ExpectSame((*aggs)[0].aggregates, FromRecords(this->store_.get(), id));
}

TYPED_TEST(StoreTablesTest, UnknownSweepIsNotFound) {
  EXPECT_EQ(this->store_->GetSweepAggregates(999).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(this->store_->ListRunResults(999).status().code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreTablesTest, ListRunResultsHoldsEachCurrentAttemptsResult) {
  Store& store = *this->store_;
  const std::vector<int64_t>& ids = this->ids_;
  EXPECT_THAT(*store.ListRunResults(this->sweep_), IsEmpty());
  this->Start(ids[0]);
  this->Start(ids[1]);
  this->Start(ids[2]);
  this->Finish(ids[2]);
  this->Finish(ids[0]);
  this->Finish(ids[1], kFailed);
  this->Move(ids[1], {kPending});  // retried: no result for attempt 2 yet
  auto results = store.ListRunResults(this->sweep_);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].run_id(), ids[0]);
  EXPECT_EQ((*results)[1].run_id(), ids[2]);
  EXPECT_TRUE(
      MessageDifferencer::Equals((*results)[1], *store.GetRunResult(ids[2])));
  // Another sweep's results are not listed.
  const std::vector<int64_t> other = this->CreateRuns(1);
  this->Start(other[0]);
  this->Finish(other[0]);
  EXPECT_EQ(store.ListRunResults(this->sweep_)->size(), 2u);
}

TYPED_TEST(StoreTablesTest, FindBaseloadsGivesDoneBaseloadsOfOneDeviceAndMode) {
  Store& store = *this->store_;
  std::vector<v1::RunSpec> specs = MakeRuns(6);
  for (v1::RunSpec& s : specs)
    s.mutable_workload()->set_task(v1::TASK_BASELOAD);
  specs[1].mutable_power_mode()->set_cpu_cores(2);        // another mode
  specs[4].mutable_workload()->set_task(v1::TASK_TRAIN);  // not a baseload
  const std::vector<int64_t> ids = this->RunIds(this->AddSweep(specs, "b"));
  ASSERT_EQ(ids.size(), 6u);
  const char* devices[] = {"orin-0", "orin-0", "nano-0",
                           "orin-0", "orin-0", "orin-0"};
  for (int i = 0; i < 6; ++i) {
    this->Start(ids[i], devices[i]);
    if (i == 3) continue;  // still running
    v1::RunResult result;
    result.set_run_id(ids[i]);
    result.set_ok(i != 5);
    result.set_baseload_power_mw(3000 + i);
    ASSERT_TRUE(
        store
            .FinishRun(result, i == 5 ? kFailed : kDone, "", this->clock_.Now())
            .ok());
  }
  auto orin = store.FindBaseloads("orin-0", nullptr);
  ASSERT_TRUE(orin.ok()) << orin.status();
  ASSERT_EQ(orin->size(), 2u);
  EXPECT_EQ((*orin)[0].run.spec().run_id(), ids[0]);
  EXPECT_EQ((*orin)[0].run.device_id(), "orin-0");
  EXPECT_EQ((*orin)[0].run.state(), kDone);
  EXPECT_EQ((*orin)[0].run.SerializeAsString(),
            this->Run(ids[0]).SerializeAsString());
  EXPECT_EQ((*orin)[0].result.baseload_power_mw(), 3000);
  EXPECT_TRUE(MessageDifferencer::Equals((*orin)[0].result,
                                         *store.GetRunResult(ids[0])));
  EXPECT_EQ((*orin)[1].run.spec().run_id(), ids[1]);

  const v1::PowerMode mode = specs[0].power_mode();
  auto same_mode = store.FindBaseloads("orin-0", &mode);
  ASSERT_TRUE(same_mode.ok()) << same_mode.status();
  ASSERT_EQ(same_mode->size(), 1u);
  EXPECT_EQ((*same_mode)[0].run.spec().run_id(), ids[0]);
  v1::PowerMode unknown = mode;
  unknown.set_preset("15W");
  EXPECT_THAT(*store.FindBaseloads("orin-0", &unknown), IsEmpty());

  auto all = store.FindBaseloads("", nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].run.spec().run_id(), ids[2]);
  EXPECT_EQ((*all)[2].run.device_id(), "nano-0");
  EXPECT_THAT(*store.FindBaseloads("xavier-9", nullptr), IsEmpty());
}

}  // namespace
}  // namespace powersweep
