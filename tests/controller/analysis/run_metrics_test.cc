// Run metrics from records built in code, and read back from a real
// SqliteStore on a temporary file.
#include "controller/analysis/run_metrics.h"

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "storage/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

v1::MinibatchRecord Mb(double e2e, double stall, double compute, int samples) {
  v1::MinibatchRecord r;
  r.set_e2e_s(e2e);
  r.set_stall_s(stall);
  r.set_compute_s(compute);
  r.set_samples(samples);
  return r;
}

v1::TelemetrySample Tel(double t, double cpu, double gpu, double power_mw,
                        int64_t rss, int64_t used) {
  v1::TelemetrySample s;
  s.set_t_s(t);
  s.set_cpu_util(cpu);
  s.set_gpu_util(gpu);
  s.set_power_mw(power_mw);
  if (power_mw > 0) s.set_power_provenance(v1::PROVENANCE_MEASURED);
  s.set_proc_rss_bytes(rss);
  s.set_mem_used_bytes(used);
  return s;
}

v1::KernelCounters Counters(int64_t pgfault, int64_t pgmajfault,
                            int64_t nr_dirty, int64_t nr_writeback,
                            int64_t pgpgout, int64_t nr_written,
                            int64_t tenant_pgfault, int64_t tenant_pgmajfault) {
  v1::KernelCounters c;
  c.set_pgfault(pgfault);
  c.set_pgmajfault(pgmajfault);
  c.set_nr_dirty(nr_dirty);
  c.set_nr_writeback(nr_writeback);
  c.set_pgpgout(pgpgout);
  c.set_nr_written(nr_written);
  c.set_tenant_pgfault(tenant_pgfault);
  c.set_tenant_pgmajfault(tenant_pgmajfault);
  return c;
}

v1::RunStatus DoneRun(int64_t id, v1::Task task = v1::TASK_TRAIN) {
  v1::RunStatus r;
  r.mutable_spec()->set_run_id(id);
  r.mutable_spec()->mutable_workload()->set_task(task);
  r.mutable_spec()->set_runtime(v1::RUNTIME_CONTAINER);
  r.set_state(v1::RUN_STATE_DONE);
  r.set_device_id("host-0");
  return r;
}

// Four minibatches: e2e 0.10, 0.20, 0.10, 0.20 (sum 0.6), stall 0.01,
// 0.03, 0.01, 0.03 (sum 0.08), compute 0.08, 0.15, 0.08, 0.15 (sum 0.46);
// 4 x 32 samples.
std::vector<v1::MinibatchRecord> FourMinibatches() {
  return {Mb(0.10, 0.01, 0.08, 32), Mb(0.20, 0.03, 0.15, 32),
          Mb(0.10, 0.01, 0.08, 32), Mb(0.20, 0.03, 0.15, 32)};
}

// Five samples, deliberately out of time order; the last one (t = 2.0) has
// no power reading and no workload RSS.
std::vector<v1::TelemetrySample> FiveSamples() {
  std::vector<v1::TelemetrySample> t = {
      Tel(0.5, 0.60, 0.10, 3000, 300, 5000),
      Tel(0.0, 0.20, 0.00, 1000, 100, 4000),
      Tel(1.5, 0.90, 0.50, 5000, 200, 9000),
      Tel(1.0, 0.40, 0.30, 2000, 400, 6000),
      Tel(2.0, 0.80, 0.20, 0, 0, 7000),
  };
  *t[1].mutable_counters() = Counters(1000, 10, 50, 0, 4000, 100, 0, 0);
  *t[0].mutable_counters() = Counters(1500, 12, 80, 5, 4100, 130, 70, 1);
  *t[3].mutable_counters() = Counters(1900, 12, 20, 9, 4100, 150, 90, 2);
  *t[2].mutable_counters() = Counters(2600, 15, 60, 2, 4800, 190, 150, 4);
  // t = 2.0 has no counters: the last counter sample is t = 1.5.
  return t;
}

v1::RunResult Result(int64_t id) {
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_duration_s(2.0);
  r.set_energy_j(42.0);
  r.set_energy_provenance(v1::PROVENANCE_MEASURED);
  r.set_energy_span_s(2.0);
  r.set_baseload_run_id(7);
  r.set_baseload_power_mw(1500);
  r.set_incremental_energy_j(39.0);
  r.mutable_provenance()->set_binary_fingerprint("bin-abc");
  r.mutable_provenance()->set_framework_fingerprint("torch-def");
  r.mutable_provenance()->set_framework_version("1.13.0");
  return r;
}

TEST(ComputeRunMetricsTest, MinibatchTimeSplitAndThroughput) {
  const v1::RunResult result = Result(3);
  RunMetrics m =
      ComputeRunMetrics(DoneRun(3), &result, FourMinibatches(), FiveSamples());
  EXPECT_EQ(m.run_id, 3);
  EXPECT_EQ(m.spec.runtime(), v1::RUNTIME_CONTAINER);
  EXPECT_EQ(m.device_id, "host-0");
  EXPECT_EQ(m.minibatches, 4);
  EXPECT_NEAR(*m.mean_minibatch_s, 0.15, 1e-12);
  EXPECT_NEAR(*m.mean_stall_s, 0.02, 1e-12);
  EXPECT_NEAR(*m.mean_compute_s, 0.115, 1e-12);
  EXPECT_NEAR(*m.mean_overhead_s, 0.15 - 0.02 - 0.115, 1e-12);
  EXPECT_NEAR(*m.samples_per_s, 128 / 0.6, 1e-9);
  EXPECT_NEAR(*m.samples, 128, 1e-9);
}

TEST(ComputeRunMetricsTest, StartTemperatureAndIdlePowerFromConditions) {
  v1::RunResult result = Result(3);
  RunMetrics m =
      ComputeRunMetrics(DoneRun(3), &result, FourMinibatches(), FiveSamples());
  EXPECT_FALSE(m.start_temp_c.has_value());
  EXPECT_FALSE(m.idle_power_w.has_value());
  result.mutable_conditions()->set_start_temp_c(0);  // measured: 0 C
  result.mutable_conditions()->set_idle_power_mw(4500);
  result.mutable_conditions()->mutable_device()->set_l4t_release("R35.4.1");
  m = ComputeRunMetrics(DoneRun(3), &result, FourMinibatches(), FiveSamples());
  ASSERT_TRUE(m.start_temp_c.has_value());
  EXPECT_EQ(*m.start_temp_c, 0);
  EXPECT_DOUBLE_EQ(*m.idle_power_w, 4.5);
  EXPECT_EQ(m.run_device.l4t_release(), "R35.4.1");
}

TEST(ComputeRunMetricsTest, MeanPowerIsEnergyOverItsSpan) {
  // With a result: 42 J over its energy_span_s of 2 s.
  const v1::RunResult result = Result(3);
  RunMetrics m =
      ComputeRunMetrics(DoneRun(3), &result, FourMinibatches(), FiveSamples());
  EXPECT_DOUBLE_EQ(*m.mean_power_w, 21.0);
  // Without: the trapezoid's 4 J over the power readings' 0 .. 1.5 s.
  m = ComputeRunMetrics(DoneRun(3), nullptr, {}, FiveSamples());
  EXPECT_NEAR(*m.mean_power_w, 4.0 / 1.5, 1e-12);
  // No power readings: no mean power.
  m = ComputeRunMetrics(DoneRun(3), nullptr, FourMinibatches(), {});
  EXPECT_FALSE(m.mean_power_w.has_value());
  EXPECT_FALSE(m.energy_j.has_value());
}

TEST(ComputeRunMetricsTest, EnergyAndProvenanceFromTheResult) {
  const v1::RunResult result = Result(3);
  RunMetrics m =
      ComputeRunMetrics(DoneRun(3), &result, FourMinibatches(), FiveSamples());
  EXPECT_DOUBLE_EQ(*m.energy_j, 42.0);
  EXPECT_EQ(m.energy_provenance, v1::PROVENANCE_MEASURED);
  EXPECT_DOUBLE_EQ(*m.incremental_energy_j, 39.0);
  EXPECT_EQ(m.baseload_run_id, 7);
  EXPECT_EQ(m.binary_fingerprint, "bin-abc");
  EXPECT_EQ(m.framework_fingerprint, "torch-def");
  EXPECT_EQ(m.framework_version, "1.13.0");
}

TEST(ComputeRunMetricsTest, MediansAndPeaksOverTelemetry) {
  RunMetrics m = ComputeRunMetrics(DoneRun(3), nullptr, {}, FiveSamples());
  EXPECT_EQ(m.telemetry_samples, 5);
  // CPU 0.2, 0.4, 0.6, 0.8, 0.9; GPU 0, 0.1, 0.2, 0.3, 0.5.
  EXPECT_DOUBLE_EQ(*m.median_cpu_util, 0.6);
  EXPECT_DOUBLE_EQ(*m.median_gpu_util, 0.2);
  // Power 1, 2, 3, 5 W (the sample without a reading is left out).
  EXPECT_DOUBLE_EQ(*m.median_power_w, 2.5);
  // RSS 100, 200, 300, 400 (0 = not read); memory used 4000 .. 9000.
  EXPECT_DOUBLE_EQ(*m.median_rss_bytes, 250);
  EXPECT_DOUBLE_EQ(*m.peak_rss_bytes, 400);
  EXPECT_DOUBLE_EQ(*m.median_mem_used_bytes, 6000);
  EXPECT_DOUBLE_EQ(*m.peak_mem_used_bytes, 9000);
  // Without a result, energy is the trapezoid of the samples in time
  // order: 0.5 x (1+3)/2 + 0.5 x (3+2)/2 + 0.5 x (2+5)/2 = 4.0 J.
  EXPECT_NEAR(*m.energy_j, 4.0, 1e-12);
  EXPECT_FALSE(m.incremental_energy_j.has_value());
  EXPECT_TRUE(m.binary_fingerprint.empty());
}

TEST(ComputeRunMetricsTest, KernelCountersLastMinusFirstAndGaugePeaks) {
  RunMetrics m = ComputeRunMetrics(DoneRun(3), nullptr, {}, FiveSamples());
  // First counter sample t = 0.0, last t = 1.5.
  EXPECT_DOUBLE_EQ(*m.page_faults, 2600 - 1000);
  EXPECT_DOUBLE_EQ(*m.major_page_faults, 15 - 10);
  EXPECT_DOUBLE_EQ(*m.pages_written_back, 190 - 100);
  EXPECT_DOUBLE_EQ(*m.paged_out_kib, 4800 - 4000);
  EXPECT_DOUBLE_EQ(*m.peak_dirty_pages, 80);
  EXPECT_DOUBLE_EQ(*m.peak_writeback_pages, 9);
  EXPECT_DOUBLE_EQ(*m.tenant_page_faults, 150);
  EXPECT_DOUBLE_EQ(*m.tenant_major_page_faults, 4);
}

TEST(ComputeRunMetricsTest, MissingDataIsAbsentNotZero) {
  // A baseload run: telemetry without GPU, counters, RSS or tenants.
  std::vector<v1::TelemetrySample> t = {Tel(0, 0.1, 0, 2000, 0, 100),
                                        Tel(1, 0.1, 0, 2000, 0, 100)};
  RunMetrics m = ComputeRunMetrics(DoneRun(4, v1::TASK_BASELOAD), nullptr, {}, t);
  EXPECT_FALSE(m.mean_minibatch_s.has_value());
  EXPECT_FALSE(m.samples_per_s.has_value());
  EXPECT_FALSE(m.median_gpu_util.has_value());
  EXPECT_FALSE(m.peak_rss_bytes.has_value());
  EXPECT_FALSE(m.page_faults.has_value());
  EXPECT_FALSE(m.tenant_page_faults.has_value());
  EXPECT_DOUBLE_EQ(*m.median_power_w, 2.0);
  EXPECT_DOUBLE_EQ(*m.median_cpu_util, 0.1);

  // Counters without a tenant; one sample only gives no deltas.
  *t[0].mutable_counters() = Counters(10, 1, 0, 0, 0, 0, 0, 0);
  *t[1].mutable_counters() = Counters(30, 1, 0, 0, 0, 0, 0, 0);
  m = ComputeRunMetrics(DoneRun(4), nullptr, {}, t);
  EXPECT_DOUBLE_EQ(*m.page_faults, 20);
  EXPECT_FALSE(m.tenant_page_faults.has_value());
  m = ComputeRunMetrics(DoneRun(4), nullptr, {}, {t[0]});
  EXPECT_FALSE(m.page_faults.has_value());

  // A counter that went down (reset) is absent.
  *t[1].mutable_counters() = Counters(5, 1, 0, 0, 0, 0, 0, 0);
  m = ComputeRunMetrics(DoneRun(4), nullptr, {}, t);
  EXPECT_FALSE(m.page_faults.has_value());
  EXPECT_DOUBLE_EQ(*m.major_page_faults, 0);

  m = ComputeRunMetrics(DoneRun(5), nullptr, {}, {});
  EXPECT_FALSE(m.median_cpu_util.has_value());
  EXPECT_FALSE(m.energy_j.has_value());
}

class LoadRunMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStore(dir_.path() + "/store.db");
    ASSERT_NE(store_, nullptr);
    std::vector<v1::RunSpec> runs = MakeRuns(3);
    runs[2].mutable_workload()->set_task(v1::TASK_BASELOAD);
    runs[2].set_repetition(0);
    auto sweep = store_->CreateSweep(MakeSpec("metrics"), runs, Now());
    ASSERT_TRUE(sweep.ok()) << sweep.status();
    sweep_id_ = *sweep;
    auto listed = store_->ListRuns(sweep_id_);
    ASSERT_TRUE(listed.ok());
    for (const v1::RunStatus& r : *listed) ids_.push_back(r.spec().run_id());
  }
  absl::Time Now() { return absl::FromUnixSeconds(1'700'000'000 + tick_++); }
  void Start(int64_t id) {
    ASSERT_TRUE(store_->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "",
                                      Now()).ok());
    ASSERT_TRUE(
        store_->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", Now()).ok());
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_id_ = 0;
  std::vector<int64_t> ids_;
  int tick_ = 0;
};

TEST_F(LoadRunMetricsTest, ReadsTheStoredRun) {
  const int64_t id = ids_[0];
  Start(id);
  // MakeBatch: 4 minibatches of e2e 0.5 s, stall 0.125 s, compute 0.25 s,
  // 32 samples; 3 samples at 4 W (modeled) and 50% CPU.
  ASSERT_TRUE(store_->IngestBatch(MakeBatch(id, 1, 4, 3)).ok());
  v1::RunResult result = Result(id);
  ASSERT_TRUE(store_->FinishRun(result, v1::RUN_STATE_DONE, "", Now()).ok());

  absl::StatusOr<RunMetrics> m = LoadRunMetrics(store_.get(), id);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->run_id, id);
  EXPECT_EQ(m->state, v1::RUN_STATE_DONE);
  EXPECT_EQ(m->device_id, "host-0");
  EXPECT_EQ(m->spec.workload().batch_size(), 8);
  EXPECT_EQ(m->minibatches, 4);
  EXPECT_DOUBLE_EQ(*m->mean_minibatch_s, 0.5);
  EXPECT_DOUBLE_EQ(*m->mean_overhead_s, 0.125);
  EXPECT_DOUBLE_EQ(*m->samples_per_s, 64);
  EXPECT_DOUBLE_EQ(*m->median_power_w, 4);
  EXPECT_DOUBLE_EQ(*m->median_cpu_util, 0.5);
  EXPECT_DOUBLE_EQ(*m->energy_j, 42);
  EXPECT_DOUBLE_EQ(*m->incremental_energy_j, 39);
  EXPECT_EQ(m->binary_fingerprint, "bin-abc");
  EXPECT_EQ(m->framework_fingerprint, "torch-def");
}

TEST_F(LoadRunMetricsTest, UnknownRunIsNotFound) {
  absl::StatusOr<RunMetrics> m = LoadRunMetrics(store_.get(), 9999);
  EXPECT_TRUE(absl::IsNotFound(m.status())) << m.status();
  EXPECT_TRUE(absl::IsNotFound(LoadSweepRunMetrics(store_.get(), 9999).status()));
}

TEST_F(LoadRunMetricsTest, SweepMetricsHoldDoneRunsWithTheStoredBaseload) {
  // The baseload run: 2 W over 10 s on host-0, same mode as the others.
  const int64_t base = ids_[2];
  Start(base);
  v1::RunResult b;
  b.set_run_id(base);
  b.set_ok(true);
  b.set_duration_s(10);
  b.set_energy_j(20);
  b.set_energy_span_s(10);
  b.set_baseload_power_mw(2000);
  ASSERT_TRUE(store_->FinishRun(b, v1::RUN_STATE_DONE, "", Now()).ok());

  // A workload run whose result the controller stored with that baseload
  // (ApplyBaseload when it finished): 42 J over 2 s.
  const int64_t id = ids_[0];
  Start(id);
  v1::RunResult r = Result(id);
  r.set_baseload_run_id(0);
  r.set_baseload_power_mw(0);
  r.set_incremental_energy_j(0);
  BaseloadRun measured;
  measured.run_id = base;
  measured.power_mw = 2000;
  ApplyBaseload(measured, &r);
  ASSERT_TRUE(store_->FinishRun(r, v1::RUN_STATE_DONE, "", Now()).ok());
  // ids_[1] stays pending.

  absl::StatusOr<std::vector<RunMetrics>> all =
      LoadSweepRunMetrics(store_.get(), sweep_id_);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].run_id, id);
  EXPECT_EQ((*all)[1].run_id, base);
  // 42 J - 2 W x 2 s.
  ASSERT_TRUE((*all)[0].incremental_energy_j.has_value());
  EXPECT_DOUBLE_EQ(*(*all)[0].incremental_energy_j, 38);
  EXPECT_EQ((*all)[0].baseload_run_id, base);
  // A baseload run has no incremental energy of its own.
  EXPECT_FALSE((*all)[1].incremental_energy_j.has_value());
  EXPECT_DOUBLE_EQ(*(*all)[1].energy_j, 20);
}

// A run stored without a baseload has no incremental energy, even with a
// baseload of its device and mode in the store: metrics read what the
// controller stored, as every other view does.
TEST_F(LoadRunMetricsTest, NoStoredBaseloadMeansNoIncrementalEnergy) {
  const int64_t id = ids_[0];
  Start(id);
  v1::RunResult r = Result(id);
  r.set_baseload_run_id(0);
  r.set_baseload_power_mw(0);
  r.set_incremental_energy_j(0);
  ASSERT_TRUE(store_->FinishRun(r, v1::RUN_STATE_DONE, "", Now()).ok());
  const int64_t base = ids_[2];
  Start(base);
  v1::RunResult b;
  b.set_run_id(base);
  b.set_ok(true);
  b.set_energy_j(20);
  b.set_energy_span_s(10);
  b.set_baseload_power_mw(2000);
  ASSERT_TRUE(store_->FinishRun(b, v1::RUN_STATE_DONE, "", Now()).ok());

  absl::StatusOr<std::vector<RunMetrics>> all =
      LoadSweepRunMetrics(store_.get(), sweep_id_);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].run_id, id);
  EXPECT_FALSE((*all)[0].incremental_energy_j.has_value());
  EXPECT_EQ((*all)[0].baseload_run_id, 0);
}

}  // namespace
}  // namespace powersweep
