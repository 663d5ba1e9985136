// Schema 7: a sweep's record aggregates (stored when a run finishes,
// computed for runs still going, refreshed by late records), its results in
// one read, and the baseload runs of one device.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "google/protobuf/util/message_differencer.h"
#include "storage/record_aggregates.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

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
    *batch.add_minibatches() = r;
  }
  for (int i = 0; i < 9; ++i) {
    v1::TelemetrySample* s = batch.add_telemetry();
    s->set_t_s(0.1 * (9 - i) + (seq % 2 == 0 ? 0.0 : 0.55));
    s->set_cpu_util(0.1 * i + 0.03 * seq);
    s->set_proc_rss_bytes(1000 * (i + seq));
    if (i % 3 != 0) s->set_power_mw(4000 + 37.5 * i + seq);
    s->set_power_provenance(i == 4 ? v1::PROVENANCE_MODELED : v1::PROVENANCE_MEASURED);
  }
  return batch;
}

// The aggregates of the records as read back, fed the way the run summary
// feeds them.
RecordAggregates FromRecords(SqliteStore* store, int64_t run_id) {
  RecordAggregator agg;
  const auto mb = store->GetMinibatches(run_id);
  const auto tel = store->GetTelemetry(run_id);
  EXPECT_TRUE(mb.ok() && tel.ok());
  for (const v1::MinibatchRecord& r : *mb) {
    agg.AddMinibatch(r.e2e_s(), r.stall_s(), r.compute_s(), r.samples(), r.loss());
  }
  for (const v1::TelemetrySample& t : *tel) {
    agg.AddSample(t.t_s(), t.cpu_util(), t.proc_rss_bytes());
    if (t.power_mw() > 0) agg.AddPowerReading(t.t_s(), t.power_mw(), t.power_provenance());
  }
  return agg.Finish();
}

void ExpectSame(const RecordAggregates& got, const RecordAggregates& want) {
  EXPECT_TRUE(MessageDifferencer::Equals(got.summary, want.summary))
      << "got " << got.summary.ShortDebugString() << "\nwant "
      << want.summary.ShortDebugString();
  EXPECT_EQ(got.power_span_s, want.power_span_s);
}

class RunAggregatesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path() + "/store.db");
    ASSERT_NE(store_, nullptr);
    auto sweep = store_->CreateSweep(MakeSpec("s"), MakeRuns(3), kNow);
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    sweep_ = *sweep;
    const auto runs = store_->ListRuns(sweep_);
    ASSERT_TRUE(runs.ok()) << runs.status();
    for (const v1::RunStatus& r : *runs) ids_.push_back(r.spec().run_id());
  }
  void Start(int64_t id) {
    ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", kNow).ok());
    ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", kNow).ok());
  }
  void Finish(int64_t id) {
    v1::RunResult result;
    result.set_run_id(id);
    result.set_ok(true);
    result.set_duration_s(12.5);
    ASSERT_TRUE(store_->FinishRun(result, v1::RUN_STATE_DONE, "", kNow).ok());
  }
  int64_t StoredRows() {
    RawConnection raw(dir_.path() + "/store.db");
    return raw.Int("SELECT COUNT(*) FROM run_aggregates");
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_ = 0;
  std::vector<int64_t> ids_;
};

TEST_F(RunAggregatesTest, SweepAggregatesEqualTheRecordsReadBack) {
  Start(ids_[0]);
  Start(ids_[1]);
  for (int64_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(store_->IngestBatch(VariedBatch(ids_[0], seq)).ok());
    ASSERT_TRUE(store_->IngestBatch(VariedBatch(ids_[1], seq)).ok());
  }
  Finish(ids_[0]);  // stored; ids_[1] still running: computed; ids_[2] empty
  EXPECT_EQ(StoredRows(), 1);

  auto aggs = store_->GetSweepAggregates(sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  ASSERT_EQ(aggs->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*aggs)[i].run_id, ids_[i]);
    EXPECT_EQ((*aggs)[i].attempt, 1);
    ExpectSame((*aggs)[i].aggregates, FromRecords(store_.get(), ids_[i]));
  }
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 21);
  EXPECT_EQ((*aggs)[0].aggregates.summary.telemetry_samples(), 27);
  EXPECT_GT((*aggs)[0].aggregates.summary.energy_j(), 0);
  EXPECT_EQ((*aggs)[0].aggregates.summary.energy_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_EQ((*aggs)[2].aggregates.summary.minibatches(), 0);
}

TEST_F(RunAggregatesTest, RecordsArrivingAfterTheFinishAreCounted) {
  Start(ids_[0]);
  ASSERT_TRUE(store_->IngestBatch(VariedBatch(ids_[0], 1)).ok());
  Finish(ids_[0]);
  ASSERT_TRUE(store_->IngestBatch(VariedBatch(ids_[0], 2)).ok());
  auto aggs = store_->GetSweepAggregates(sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 14);
  ExpectSame((*aggs)[0].aggregates, FromRecords(store_.get(), ids_[0]));
}

TEST_F(RunAggregatesTest, ARetryShowsTheNewAttempt) {
  Start(ids_[0]);
  ASSERT_TRUE(store_->IngestBatch(VariedBatch(ids_[0], 1)).ok());
  ASSERT_TRUE(store_->TransitionRun(ids_[0], v1::RUN_STATE_FAILED, "", "lost", kNow).ok());
  ASSERT_TRUE(store_->TransitionRun(ids_[0], v1::RUN_STATE_PENDING, "", "", kNow).ok());
  auto aggs = store_->GetSweepAggregates(sweep_);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  EXPECT_EQ((*aggs)[0].attempt, 2);
  EXPECT_EQ((*aggs)[0].aggregates.summary.minibatches(), 0);
}

TEST_F(RunAggregatesTest, UnknownSweepIsNotFound) {
  EXPECT_EQ(store_->GetSweepAggregates(999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->ListRunResults(999).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(RunAggregatesTest, ListRunResultsHoldsEachFinishedRunsResult) {
  Start(ids_[0]);
  Start(ids_[2]);
  Finish(ids_[2]);
  Finish(ids_[0]);
  auto results = store_->ListRunResults(sweep_);
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ((*results)[0].run_id(), ids_[0]);
  EXPECT_EQ((*results)[1].run_id(), ids_[2]);
  EXPECT_TRUE(MessageDifferencer::Equals((*results)[1], *store_->GetRunResult(ids_[2])));
}

TEST(FindBaseloadsTest, DoneBaselinesOfOneDeviceAndMode) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  std::vector<v1::RunSpec> specs = MakeRuns(5);
  for (v1::RunSpec& s : specs) s.mutable_workload()->set_task(v1::TASK_BASELOAD);
  specs[1].mutable_power_mode()->set_cpu_cores(2);  // another mode
  specs[4].mutable_workload()->set_task(v1::TASK_TRAIN);  // not a baseload
  auto sweep = store->CreateSweep(MakeSpec("b"), specs, kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  std::vector<int64_t> ids;
  const auto runs = store->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok()) << runs.status();
  for (const v1::RunStatus& r : *runs) ids.push_back(r.spec().run_id());
  const char* devices[] = {"orin-0", "orin-0", "nano-0", "orin-0", "orin-0"};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store->TransitionRun(ids[i], v1::RUN_STATE_LEASED, devices[i], "", kNow).ok());
    ASSERT_TRUE(store->TransitionRun(ids[i], v1::RUN_STATE_RUNNING, "", "", kNow).ok());
    if (i == 3) continue;  // still running
    v1::RunResult result;
    result.set_run_id(ids[i]);
    result.set_ok(true);
    result.set_baseload_power_mw(3000 + i);
    ASSERT_TRUE(store->FinishRun(result, v1::RUN_STATE_DONE, "", kNow).ok());
  }
  auto orin = store->FindBaseloads("orin-0", nullptr);
  ASSERT_TRUE(orin.ok()) << orin.status();
  ASSERT_EQ(orin->size(), 2u);
  EXPECT_EQ((*orin)[0].run.spec().run_id(), ids[0]);
  EXPECT_EQ((*orin)[0].run.device_id(), "orin-0");
  EXPECT_EQ((*orin)[0].result.baseload_power_mw(), 3000);
  EXPECT_EQ((*orin)[1].run.spec().run_id(), ids[1]);

  const v1::PowerMode mode = specs[0].power_mode();
  auto same_mode = store->FindBaseloads("orin-0", &mode);
  ASSERT_TRUE(same_mode.ok()) << same_mode.status();
  ASSERT_EQ(same_mode->size(), 1u);
  EXPECT_EQ((*same_mode)[0].run.spec().run_id(), ids[0]);

  auto all = store->FindBaseloads("", nullptr);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->size(), 3u);
  EXPECT_TRUE(store->FindBaseloads("xavier-9", nullptr)->empty());
}

}  // namespace
}  // namespace powersweep
