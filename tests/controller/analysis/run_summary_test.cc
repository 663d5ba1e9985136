#include "controller/analysis/run_summary.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"

namespace powersweep {
namespace {

v1::MinibatchRecord Mb(double e2e, double stall, double compute, int samples,
                       double loss) {
  v1::MinibatchRecord r;
  r.set_e2e_s(e2e);
  r.set_stall_s(stall);
  r.set_compute_s(compute);
  r.set_samples(samples);
  r.set_loss(loss);
  return r;
}

v1::TelemetrySample Tel(double t, double util, int64_t rss, double power_mw,
                        v1::Provenance p = v1::PROVENANCE_MEASURED) {
  v1::TelemetrySample s;
  s.set_t_s(t);
  s.set_cpu_util(util);
  s.set_proc_rss_bytes(rss);
  s.set_power_mw(power_mw);
  if (power_mw > 0) s.set_power_provenance(p);
  return s;
}

// Seven minibatches; the last one is a partial batch of 16 samples.
std::vector<v1::MinibatchRecord> SevenMinibatches() {
  return {Mb(0.10, 0.02, 0.07, 32, 2.0), Mb(0.20, 0.04, 0.14, 32, 1.8),
          Mb(0.10, 0.01, 0.08, 32, 1.6), Mb(0.30, 0.05, 0.20, 32, 1.4),
          Mb(0.10, 0.02, 0.07, 32, 1.2), Mb(0.20, 0.03, 0.15, 32, 1.0),
          Mb(0.10, 0.01, 0.08, 16, 0.8)};
}

// Uneven sampling: intervals of 0.5 s, 1.5 s and 0.25 s.
std::vector<v1::TelemetrySample> FourSamples() {
  return {Tel(0.0, 0.5, 100, 1000), Tel(0.5, 0.7, 300, 3000),
          Tel(2.0, 0.9, 250, 2000), Tel(2.25, 0.3, 200, 6000)};
}

// A kernel run: each record one timed iteration; the result's KernelInfo
// gives FLOPs and launches per iteration, so GFLOP/s and the launch rate
// are those over the mean compute time (here 0.25 s).
TEST(SummarizeRunTest, KernelRunsGetGflopsAndLaunchRate) {
  const std::vector<v1::MinibatchRecord> iterations = {
      Mb(0.21, 0, 0.2, 1, 0), Mb(0.31, 0, 0.3, 1, 0)};
  v1::RunResult result;
  v1::KernelInfo* k =
      result.mutable_provenance()->mutable_workload()->mutable_kernel();
  k->set_flops(5e9);
  k->set_launches(400);
  const v1::RunSummary s = SummarizeRun(iterations, {}, &result);
  EXPECT_NEAR(s.kernel_gflop_per_s(), 5.0 / 0.25, 1e-9);
  EXPECT_NEAR(s.kernel_launches_per_s(), 400 / 0.25, 1e-9);
  // A network's result has no KernelInfo: no kernel figures.
  v1::RunResult network;
  network.mutable_provenance()->mutable_workload()->set_params(1000);
  const v1::RunSummary n = SummarizeRun(iterations, {}, &network);
  EXPECT_EQ(n.kernel_gflop_per_s(), 0);
  EXPECT_EQ(n.kernel_launches_per_s(), 0);
}

TEST(SummarizeRunTest, MinibatchAggregates) {
  v1::RunSummary s = SummarizeRun(SevenMinibatches(), {}, nullptr);
  EXPECT_EQ(s.minibatches(), 7);
  // e2e sum 1.10 s, stall sum 0.18 s, compute sum 0.79 s, over 7.
  EXPECT_NEAR(s.mean_minibatch_s(), 1.10 / 7, 1e-12);
  EXPECT_NEAR(s.mean_stall_s(), 0.18 / 7, 1e-12);
  EXPECT_NEAR(s.mean_compute_s(), 0.79 / 7, 1e-12);
  // 6 x 32 + 16 = 208 samples in 1.10 s.
  EXPECT_NEAR(s.samples_per_s(), 208 / 1.10, 1e-9);
  // First five losses (2.0 .. 1.2) average 1.6; last five (1.6 .. 0.8) 1.2.
  EXPECT_NEAR(s.first_loss(), 1.6, 1e-12);
  EXPECT_NEAR(s.last_loss(), 1.2, 1e-12);
}

// A twin's inference records carry no loss: no first or last loss (shown
// as `-`), not 0; the windows are over the minibatches that have one.
TEST(SummarizeRunTest, MinibatchesWithoutLossHaveNoLossFigures) {
  v1::MinibatchRecord no_loss = Mb(0.1, 0, 0.1, 8, 0);
  no_loss.clear_loss();
  v1::RunSummary s = SummarizeRun({no_loss, no_loss, no_loss}, {}, nullptr);
  EXPECT_EQ(s.minibatches(), 3);
  EXPECT_FALSE(s.has_first_loss());
  EXPECT_FALSE(s.has_last_loss());
  s = SummarizeRun({no_loss, Mb(0.1, 0, 0.1, 8, 2.0), no_loss}, {}, nullptr);
  EXPECT_NEAR(s.first_loss(), 2.0, 1e-12);
  EXPECT_NEAR(s.last_loss(), 2.0, 1e-12);
}

TEST(SummarizeRunTest, FewerThanFiveMinibatchesAverageThemAll) {
  v1::RunSummary s =
      SummarizeRun({Mb(0.1, 0, 0.1, 8, 3.0), Mb(0.1, 0, 0.1, 8, 2.0),
                    Mb(0.1, 0, 0.1, 8, 1.0)},
                   {}, nullptr);
  EXPECT_NEAR(s.first_loss(), 2.0, 1e-12);
  EXPECT_NEAR(s.last_loss(), 2.0, 1e-12);
}

TEST(SummarizeRunTest, TelemetryAggregatesAndTrapezoidEnergy) {
  v1::RunSummary s = SummarizeRun({}, FourSamples(), nullptr);
  EXPECT_EQ(s.telemetry_samples(), 4);
  EXPECT_NEAR(s.mean_cpu_util(), (0.5 + 0.7 + 0.9 + 0.3) / 4, 1e-12);
  EXPECT_EQ(s.peak_rss_bytes(), 300);
  EXPECT_DOUBLE_EQ(s.duration_s(), 2.25);
  // By hand: 0.5 s x (1 W + 3 W)/2 = 1.0 J; 1.5 s x (3 W + 2 W)/2 = 3.75 J;
  // 0.25 s x (2 W + 6 W)/2 = 1.0 J; total 5.75 J. (A plain mean of the
  // readings, 3 W x 2.25 s = 6.75 J, would be wrong.)
  EXPECT_NEAR(s.energy_j(), 5.75, 1e-12);
  EXPECT_EQ(s.energy_provenance(), v1::PROVENANCE_MEASURED);
}

TEST(SummarizeRunTest, SamplesWithoutPowerAreBridged) {
  std::vector<v1::TelemetrySample> t = FourSamples();
  t.insert(t.begin() + 2, Tel(1.0, 0.8, 280, 0));  // no reading at t = 1.0
  v1::RunSummary s = SummarizeRun({}, t, nullptr);
  EXPECT_EQ(s.telemetry_samples(), 5);
  EXPECT_NEAR(s.energy_j(), 5.75, 1e-12);
}

TEST(SummarizeRunTest, EnergyProvenanceIsTheLeastDirectSampleUsed) {
  std::vector<v1::TelemetrySample> t = FourSamples();
  t[2].set_power_provenance(v1::PROVENANCE_MODELED);
  EXPECT_EQ(SummarizeRun({}, t, nullptr).energy_provenance(),
            v1::PROVENANCE_MODELED);
}

TEST(SummarizeRunTest, NoPowerReadingsMeansNoEnergy) {
  v1::RunSummary s =
      SummarizeRun({}, {Tel(0, 0.1, 1, 0), Tel(1, 0.1, 1, 0)}, nullptr);
  EXPECT_EQ(s.energy_j(), 0);
  EXPECT_EQ(s.energy_provenance(), v1::PROVENANCE_UNSPECIFIED);
}

TEST(SummarizeRunTest, ResultFiguresWinOverStoredSamples) {
  v1::RunResult result;
  result.set_ok(true);
  result.set_duration_s(3.0);
  result.set_energy_j(7.5);
  result.set_energy_provenance(v1::PROVENANCE_EMULATED);
  v1::RunSummary s = SummarizeRun(SevenMinibatches(), FourSamples(), &result);
  EXPECT_DOUBLE_EQ(s.duration_s(), 3.0);
  EXPECT_DOUBLE_EQ(s.energy_j(), 7.5);
  EXPECT_EQ(s.energy_provenance(), v1::PROVENANCE_EMULATED);
  EXPECT_EQ(s.minibatches(), 7);  // records still summarized
}

TEST(SummarizeRunTest, ResultWithoutEnergyFallsBackToSamples) {
  v1::RunResult result;
  result.set_ok(false);
  result.set_reason("killed");
  v1::RunSummary s = SummarizeRun({}, FourSamples(), &result);
  EXPECT_DOUBLE_EQ(s.duration_s(), 2.25);
  EXPECT_NEAR(s.energy_j(), 5.75, 1e-12);
}

// A twin at a constant 6.918 W sampled every 50 ms: the first reading is
// 50 ms into the run, so the energy covers 0.05 .. 6.00 s. Mean power is
// that energy over the same span, exactly 6.918 W (not energy / duration,
// 2.5% low on a 2 s run and 0.8% low here).
std::vector<v1::TelemetrySample> ConstantTrace() {
  std::vector<v1::TelemetrySample> t;
  for (int i = 1; i <= 120; ++i) {
    t.push_back(Tel(0.05 * i, 0.5, 100, 6918, v1::PROVENANCE_SIMULATED));
  }
  return t;
}

TEST(SummarizeRunTest, MeanPowerOfAConstantTraceIsExact) {
  v1::RunSummary s = SummarizeRun({}, ConstantTrace(), nullptr);
  EXPECT_NEAR(s.energy_span_s(), 5.95, 1e-9);
  EXPECT_NEAR(s.mean_power_mw(), 6918, 1e-6);
}

TEST(SummarizeRunTest, MeanPowerUsesTheResultsSpanNotItsDuration) {
  v1::RunResult result;  // as the agent's FillRunEnergy fills it
  result.set_ok(true);
  result.set_duration_s(6.0);
  result.set_energy_j(6.918 * 5.95);
  result.set_energy_span_s(5.95);
  result.set_energy_provenance(v1::PROVENANCE_SIMULATED);
  v1::RunSummary s = SummarizeRun({}, ConstantTrace(), &result);
  EXPECT_DOUBLE_EQ(s.duration_s(), 6.0);
  EXPECT_NEAR(s.mean_power_mw(), 6918, 1e-6);
}

TEST(SummarizeRunTest, NoEnergyMeansNoMeanPower) {
  v1::RunSummary s =
      SummarizeRun({}, {Tel(0, 0.1, 1, 0), Tel(1, 0.1, 1, 0)}, nullptr);
  EXPECT_EQ(s.mean_power_mw(), 0);
  EXPECT_EQ(s.energy_span_s(), 0);
}

TEST(SummarizeRunTest, NothingRecordedIsAllZero) {
  v1::RunSummary s = SummarizeRun({}, {}, nullptr);
  EXPECT_EQ(s.ByteSizeLong(), 0u);
}

// Stores a run with its records (and, when `result` is not null, finishes
// it with that result); returns its id.
int64_t StoreRun(Store* store, const std::vector<v1::MinibatchRecord>& mb,
                 const std::vector<v1::TelemetrySample>& tel,
                 const v1::RunResult* result) {
  const absl::Time now = absl::FromUnixSeconds(1700000000);
  v1::SweepSpec spec;
  spec.set_name("summary");
  auto sweep = store->CreateSweep(spec, {v1::RunSpec()}, now);
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();
  EXPECT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", now).ok());
  EXPECT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", now).ok());
  v1::DataBatch batch;
  batch.set_run_id(id);
  batch.set_seq(1);
  for (const v1::MinibatchRecord& r : mb) *batch.add_minibatches() = r;
  for (const v1::TelemetrySample& s : tel) *batch.add_telemetry() = s;
  EXPECT_TRUE(store->IngestBatch(batch).ok());
  if (result != nullptr) {
    v1::RunResult r = *result;
    r.set_run_id(id);
    EXPECT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", now).ok());
  }
  return id;
}

TEST(SummarizeStoredRunTest, RunWithoutResultIsSummarizedFromRecords) {
  MemoryStore store;
  const int64_t id = StoreRun(&store, SevenMinibatches(), FourSamples(), nullptr);
  absl::StatusOr<v1::RunSummary> s = SummarizeStoredRun(&store, id);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->minibatches(), 7);
  EXPECT_EQ(s->telemetry_samples(), 4);
  EXPECT_DOUBLE_EQ(s->duration_s(), 2.25);
  EXPECT_NEAR(s->energy_j(), 5.75, 1e-12);
}

TEST(SummarizeStoredRunTest, UsesTheStoredResult) {
  MemoryStore store;
  v1::RunResult result;
  result.set_ok(true);
  result.set_duration_s(4.0);
  result.set_energy_j(9.0);
  result.set_energy_provenance(v1::PROVENANCE_MEASURED);
  const int64_t id = StoreRun(&store, SevenMinibatches(), FourSamples(), &result);
  absl::StatusOr<v1::RunSummary> s = SummarizeStoredRun(&store, id);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->duration_s(), 4.0);
  EXPECT_DOUBLE_EQ(s->energy_j(), 9.0);
  EXPECT_EQ(s->minibatches(), 7);
  // No span in the result: the stored readings' span (0 .. 2.25 s).
  EXPECT_NEAR(s->mean_power_mw(), 9.0 / 2.25 * 1000, 1e-9);
}

TEST(SummarizeStoredRunTest, StoredConstantTraceHasExactMeanPower) {
  MemoryStore store;
  const int64_t id = StoreRun(&store, {}, ConstantTrace(), nullptr);
  absl::StatusOr<v1::RunSummary> s = SummarizeStoredRun(&store, id);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_NEAR(s->mean_power_mw(), 6918, 1e-6);
}

TEST(SummarizeStoredRunTest, UnknownRunIsNotFound) {
  MemoryStore store;
  absl::StatusOr<v1::RunSummary> s = SummarizeStoredRun(&store, 99);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
