// The `runs`/`summary` tables' summaries from the store's per-run
// aggregates equal the summaries recomputed from every stored record.
#include "controller/analysis/sweep_summaries.h"

#include <string>
#include <vector>

#include "controller/analysis/baseload.h"
#include "controller/analysis/run_summary.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::google::protobuf::util::MessageDifferencer;

v1::DataBatch Records(int64_t run_id, int64_t seq, double watts) {
  v1::DataBatch batch = MakeBatch(run_id, seq, 6, 5);
  for (int i = 0; i < batch.telemetry_size(); ++i) {
    v1::TelemetrySample* s = batch.mutable_telemetry(i);
    s->set_power_mw(i == 2 ? 0 : 1000 * watts + 17 * i);  // one without reading
    s->set_proc_rss_bytes(1000 + 10 * i);
    s->set_cpu_util(0.1 * i + 0.01 * seq);
    v1::RailSample* rail = s->add_rails();
    rail->set_name("VDD_IN");
    rail->set_power_mw(s->power_mw());
  }
  for (int i = 0; i < batch.minibatches_size(); ++i) {
    batch.mutable_minibatches(i)->set_e2e_s(0.3 + 0.01 * i);
    batch.mutable_minibatches(i)->set_loss(2.0 / (1 + i + seq));
  }
  return batch;
}

TEST(SweepSummariesTest, EqualTheSummariesRecomputedFromRecords) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  absl::Time t = absl::FromUnixSeconds(1800000000);
  std::vector<v1::RunSpec> specs = MakeRuns(5);
  specs[0].mutable_workload()->set_task(v1::TASK_BASELOAD);
  auto sweep = store->CreateSweep(MakeSpec("s"), specs, t);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  std::vector<int64_t> ids;
  {
    auto runs = store->ListRuns(*sweep);
    ASSERT_TRUE(runs.ok());
    for (const v1::RunStatus& r : *runs) ids.push_back(r.spec().run_id());
  }
  // ids[1]: done before any baseload (none applied, span from its result);
  // ids[0]: the baseload; ids[2]: done with records only (span from its
  // samples); ids[3]: still running; ids[4]: pending.
  auto run = [&](int64_t id, const std::string& device) {
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, device, "", t).ok());
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", t).ok());
    for (int64_t seq = 1; seq <= 3; ++seq) {
      ASSERT_TRUE(store->IngestBatch(Records(id, seq, 3 + id % 3)).ok());
    }
    t += absl::Seconds(30);
  };
  auto finish = [&](int64_t id, double energy_j, double span_s) {
    v1::RunResult r;
    r.set_run_id(id);
    r.set_ok(true);
    r.set_energy_j(energy_j);
    r.set_energy_span_s(span_s);
    if (energy_j > 0) r.set_energy_provenance(v1::PROVENANCE_MEASURED);
    r.set_duration_s(span_s + 0.5);
    ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", t).ok());
  };
  run(ids[1], "host-0");
  finish(ids[1], 120, 25);
  run(ids[0], "host-0");
  finish(ids[0], 30, 10);
  run(ids[2], "host-0");
  finish(ids[2], 0, 0);
  run(ids[3], "host-1");

  auto listed = ListRunsWithSummaries(store.get(), *sweep);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const v1::RunStatus& got = (*listed)[i];
    EXPECT_EQ(got.spec().run_id(), ids[i]);
    auto want = SummarizeStoredRun(store.get(), ids[i]);
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(MessageDifferencer::Equals(got.summary(), *want))
        << "run " << ids[i] << "\ngot  " << got.summary().ShortDebugString()
        << "\nwant " << want->ShortDebugString();
  }
  // What a user sees: the later baseload is not applied to the earlier run
  // (nothing was stored with its result), and the baseload run reports its
  // own power.
  EXPECT_EQ((*listed)[1].summary().baseload_run_id(), 0);
  EXPECT_EQ((*listed)[1].summary().incremental_energy_j(), 0);
  EXPECT_DOUBLE_EQ((*listed)[0].summary().baseload_power_mw(), 3000);
  EXPECT_EQ((*listed)[2].summary().baseload_run_id(), 0);
  EXPECT_NEAR((*listed)[1].summary().mean_power_mw(), 120.0 / 25 * 1000, 1e-9);
  EXPECT_EQ((*listed)[3].summary().minibatches(), 18);
  EXPECT_EQ((*listed)[4].summary().minibatches(), 0);
}

TEST(SweepSummariesTest, UnknownSweepIsNotFound) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(ListRunsWithSummaries(store.get(), 42).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(SweepSummariesTest, BaseloadsOfOneDeviceOnly) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  absl::Time t = absl::FromUnixSeconds(1800000000);
  std::vector<v1::RunSpec> specs = MakeRuns(2);
  for (v1::RunSpec& s : specs) s.mutable_workload()->set_task(v1::TASK_BASELOAD);
  auto sweep = store->CreateSweep(MakeSpec("b"), specs, t);
  ASSERT_TRUE(sweep.ok());
  auto runs = store->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok());
  const char* devices[] = {"orin-0", "nano-0"};
  for (int i = 0; i < 2; ++i) {
    const int64_t id = (*runs)[i].spec().run_id();
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, devices[i], "", t).ok());
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", t).ok());
    v1::RunResult r;
    r.set_run_id(id);
    r.set_ok(true);
    r.set_baseload_power_mw(2000 + i);
    ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", t).ok());
  }
  auto orin = LoadBaseloads(store.get(), "orin-0");
  ASSERT_TRUE(orin.ok()) << orin.status();
  ASSERT_EQ(orin->size(), 1u);
  EXPECT_EQ((*orin)[0].device_id, "orin-0");
  EXPECT_DOUBLE_EQ((*orin)[0].power_mw, 2000);
  EXPECT_EQ(LoadBaseloads(store.get())->size(), 2u);
}

}  // namespace
}  // namespace powersweep
