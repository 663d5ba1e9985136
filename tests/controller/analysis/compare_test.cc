// The runtime comparison on synthetic sweeps built in code: cells, the
// figures per metric, significance, warnings and the table.
#include "controller/analysis/compare.h"

#include <algorithm>
#include <string>
#include <vector>

#include "controller/analysis/compare_table.h"
#include "controller/analysis/stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

v1::RunSpec Spec(const std::string& preset, v1::Runtime runtime, int rep) {
  v1::RunSpec s;
  s.set_sweep_id(1);
  s.set_device_class("host");
  s.mutable_workload()->set_model("lenet5");
  s.mutable_workload()->set_dataset("fashion-mnist");
  s.mutable_workload()->set_task(v1::TASK_TRAIN);
  s.mutable_workload()->set_batch_size(32);
  s.mutable_workload()->set_minibatches(100);
  s.mutable_power_mode()->set_preset(preset);
  s.set_runtime(runtime);
  s.set_repetition(rep);
  s.set_attempt(1);
  s.set_telemetry_hz(10);
  return s;
}

// A done run whose minibatch time is `mb_ms` and energy `energy_j`;
// everything else the same on every run.
RunMetrics Done(int64_t id, const std::string& preset, v1::Runtime runtime,
                int rep, double mb_ms, double energy_j) {
  RunMetrics m;
  m.run_id = id;
  m.spec = Spec(preset, runtime, rep);
  m.spec.set_run_id(id);
  m.state = v1::RUN_STATE_DONE;
  m.device_id = "host-0";
  m.minibatches = 100;
  m.mean_minibatch_s = mb_ms / 1000;
  m.mean_stall_s = 0.001;
  m.mean_compute_s = mb_ms / 1000 - 0.002;
  m.mean_overhead_s = 0.001;
  m.samples_per_s = 32 / (mb_ms / 1000);
  m.energy_j = energy_j;
  m.median_cpu_util = 0.5;
  m.binary_fingerprint = "bin-1";
  m.framework_fingerprint = "torch-1";
  return m;
}

const MetricComparison* Find(const CellComparison& cell, Metric metric) {
  for (const MetricComparison& m : cell.metrics) {
    if (m.info.metric == metric) return &m;
  }
  return nullptr;
}

// Two power modes x native/container x 3 repetitions. MAXN: the container
// is clearly slower (10 ms vs 12 ms, little noise); 15W: noise only.
std::vector<RunMetrics> Sweep() {
  return {
      Done(1, "MAXN", v1::RUNTIME_NATIVE, 0, 10.0, 100),
      Done(2, "MAXN", v1::RUNTIME_CONTAINER, 0, 12.0, 101),
      Done(3, "15W", v1::RUNTIME_NATIVE, 0, 20.0, 80),
      Done(4, "15W", v1::RUNTIME_CONTAINER, 0, 21.0, 79),
      Done(5, "MAXN", v1::RUNTIME_NATIVE, 1, 10.1, 99),
      Done(6, "MAXN", v1::RUNTIME_CONTAINER, 1, 12.1, 100),
      Done(7, "15W", v1::RUNTIME_NATIVE, 1, 21.0, 81),
      Done(8, "15W", v1::RUNTIME_CONTAINER, 1, 19.0, 80),
      Done(9, "MAXN", v1::RUNTIME_NATIVE, 2, 9.9, 101),
      Done(10, "MAXN", v1::RUNTIME_CONTAINER, 2, 11.9, 99),
      Done(11, "15W", v1::RUNTIME_NATIVE, 2, 19.0, 79),
      Done(12, "15W", v1::RUNTIME_CONTAINER, 2, 20.0, 81),
  };
}

TEST(CompareByTest, ParsesRuntimeAndRejectsUnknown) {
  EXPECT_EQ(ParseCompareBy("runtime").value(), CompareBy::kRuntime);
  absl::StatusOr<CompareBy> bad = ParseCompareBy("board");
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status()));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--by"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("device"));
}

TEST(CompareByTest, DeviceNeedsTwoDifferentDevices) {
  absl::StatusOr<CompareDimension> d =
      ParseCompareDimension("device", {"xavier-0", "xavier-3"});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->by, CompareBy::kDevice);
  EXPECT_EQ(BaselineLabel(*d), "xavier-0");
  EXPECT_EQ(OtherLabel(*d), "xavier-3");
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{
           {}, {"a"}, {"a", "a"}, {"a", ""}, {"a", "b", "c"}}) {
    absl::StatusOr<CompareDimension> r = ParseCompareDimension("device", bad);
    EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << bad.size();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("--devices A,B"));
  }
  EXPECT_THAT(std::string(ParseCompareDimension("runtime", {"a", "b"})
                              .status()
                              .message()),
              HasSubstr("--devices"));
  EXPECT_TRUE(ParseCompareDimension("runtime", {}).ok());
}

TEST(CompareByTest, CellKeyIgnoresRuntimeRepetitionAttemptAndIds) {
  v1::RunSpec a = Spec("MAXN", v1::RUNTIME_NATIVE, 0);
  v1::RunSpec b = Spec("MAXN", v1::RUNTIME_CONTAINER, 2);
  b.set_container_image("powersweep-workload:local");  // as expanded
  a.set_run_id(1);
  b.set_run_id(7);
  b.set_attempt(2);
  b.set_sweep_id(3);
  EXPECT_EQ(CellKey(CompareBy::kRuntime, a).SerializeAsString(),
            CellKey(CompareBy::kRuntime, b).SerializeAsString());
  v1::RunSpec c = Spec("15W", v1::RUNTIME_NATIVE, 0);
  EXPECT_NE(CellKey(CompareBy::kRuntime, a).SerializeAsString(),
            CellKey(CompareBy::kRuntime, c).SerializeAsString());
  EXPECT_EQ(SideOf(CompareBy::kRuntime, a), Side::kBaseline);
  EXPECT_EQ(SideOf(CompareBy::kRuntime, b), Side::kOther);
  a.set_runtime(v1::RUNTIME_UNSPECIFIED);
  EXPECT_EQ(SideOf(CompareBy::kRuntime, a), Side::kBaseline);
}

TEST(CompareByTest, PageCacheKeepIsTheBaselineAndDropTheOtherSide) {
  EXPECT_EQ(ParseCompareBy("page_cache").value(), CompareBy::kPageCache);
  EXPECT_EQ(ParseCompareBy("page-cache").value(), CompareBy::kPageCache);
  std::vector<RunMetrics> runs;
  for (int rep = 0; rep < 3; ++rep) {
    RunMetrics keep = Done(1 + 2 * rep, "MAXN", v1::RUNTIME_NATIVE, rep,
                           10.0 + 0.1 * rep, 100);
    RunMetrics drop = Done(2 + 2 * rep, "MAXN", v1::RUNTIME_NATIVE, rep,
                           14.0 + 0.1 * rep, 130);
    keep.spec.mutable_workload()->set_page_cache(v1::PAGE_CACHE_KEEP);
    drop.spec.mutable_workload()->set_page_cache(v1::PAGE_CACHE_DROP);
    runs.push_back(keep);
    runs.push_back(drop);
  }
  const Comparison c = CompareRuns(runs, CompareBy::kPageCache);
  ASSERT_EQ(c.cells.size(), 1u);
  const MetricComparison* mb = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_EQ(mb->baseline.n, 3);
  EXPECT_EQ(mb->other.n, 3);
  EXPECT_NEAR(mb->difference_percent, 40.0, 1.5);
  EXPECT_EQ(BaselineLabel(CompareBy::kPageCache), "keep");
  EXPECT_EQ(OtherLabel(CompareBy::kPageCache), "drop");
  // The same workload natively and in a container is not a page-cache pair.
  EXPECT_NE(CellKey(CompareBy::kPageCache, runs[0].spec).SerializeAsString(),
            CellKey(CompareBy::kPageCache,
                    Spec("MAXN", v1::RUNTIME_CONTAINER, 0))
                .SerializeAsString());
}

TEST(CompareByTest, SyntheticDataIsTheBaselineAndRealDataTheOtherSide) {
  EXPECT_EQ(ParseCompareBy("data").value(), CompareBy::kData);
  EXPECT_EQ(ParseCompareBy("dataset").value(), CompareBy::kData);
  std::vector<RunMetrics> runs;
  for (int rep = 0; rep < 3; ++rep) {
    RunMetrics synthetic = Done(1 + 3 * rep, "MAXN", v1::RUNTIME_NATIVE, rep,
                                10.0 + 0.1 * rep, 100);
    synthetic.spec.mutable_workload()->set_dataset("synthetic");
    runs.push_back(synthetic);
    runs.push_back(Done(2 + 3 * rep, "MAXN", v1::RUNTIME_NATIVE, rep,
                        13.0 + 0.1 * rep, 120));
    // A baseload run reads no data: on neither side.
    RunMetrics idle = Done(3 + 3 * rep, "MAXN", v1::RUNTIME_NATIVE, rep, 1, 1);
    idle.spec.mutable_workload()->set_task(v1::TASK_BASELOAD);
    runs.push_back(idle);
  }
  const Comparison c = CompareRuns(runs, CompareBy::kData);
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_EQ(c.cells[0].label, "lenet5 train bs=32 workers=0 | host | MAXN");
  EXPECT_THAT(c.cells[0].baseline_run_ids, ElementsAre(1, 4, 7));
  EXPECT_THAT(c.cells[0].other_run_ids, ElementsAre(2, 5, 8));
  const MetricComparison* mb = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_NEAR(mb->difference_percent, 30.0, 0.5);
  EXPECT_THAT(c.warnings, ElementsAre(HasSubstr("3, 6, 9")));
  EXPECT_EQ(BaselineLabel(CompareBy::kData), "synthetic");
  EXPECT_EQ(OtherLabel(CompareBy::kData), "real");
}

// The Appl. Sci. '23 comparison: a run alone vs four copies started
// together, per runtime; the label says which runtime.
TEST(CompareByTest, OneTenantIsTheBaselineAndCoLocatedTenantsTheOtherSide) {
  EXPECT_EQ(ParseCompareBy("tenants").value(), CompareBy::kTenants);
  EXPECT_THAT(ParseCompareBy("tenant").status().message(),
              HasSubstr("tenants"));
  std::vector<RunMetrics> runs;
  int64_t id = 0;
  for (v1::Runtime runtime : {v1::RUNTIME_NATIVE, v1::RUNTIME_CONTAINER}) {
    for (int rep = 0; rep < 2; ++rep) {
      runs.push_back(Done(++id, "MAXN", runtime, rep, 10.0 + rep, 100));
      RunMetrics four = Done(++id, "MAXN", runtime, rep, 30.0 + rep, 300);
      four.spec.set_tenants(4);
      runs.push_back(four);
    }
  }
  const Comparison c = CompareRuns(runs, CompareBy::kTenants);
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_EQ(c.cells[0].label,
            "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN");
  EXPECT_EQ(c.cells[1].label,
            "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN | "
            "container");
  EXPECT_THAT(c.cells[0].baseline_run_ids, ElementsAre(1, 3));
  EXPECT_THAT(c.cells[0].other_run_ids, ElementsAre(2, 4));
  const MetricComparison* mb = Find(c.cells[1], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  // 10 and 11 ms alone, 30 and 31 ms with four tenants: +190.5%.
  EXPECT_NEAR(mb->difference_percent, 100 * (30.5 - 10.5) / 10.5, 1e-9);
  EXPECT_EQ(BaselineLabel(CompareBy::kTenants), "1 tenant");
  EXPECT_EQ(OtherLabel(CompareBy::kTenants), "co-located");
  // Compared by runtime, the four-tenant cells say so.
  const Comparison r = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(r.cells.size(), 2u);
  EXPECT_THAT(r.cells[1].label, ::testing::EndsWith("| MAXN | x4 tenants"));
}

TEST(CompareRunsTest, OneCellPerPowerModeWithItsRuns) {
  Comparison c = CompareRuns(Sweep(), CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_EQ(c.cells[0].label, "lenet5/fashion-mnist train bs=32 workers=0 | host | MAXN");
  EXPECT_THAT(c.cells[0].baseline_run_ids, ElementsAre(1, 5, 9));
  EXPECT_THAT(c.cells[0].other_run_ids, ElementsAre(2, 6, 10));
  EXPECT_THAT(c.cells[1].label, HasSubstr("15W"));
  EXPECT_THAT(c.cells[1].baseline_run_ids, ElementsAre(3, 7, 11));
  EXPECT_THAT(c.cells[1].other_run_ids, ElementsAre(4, 8, 12));
  EXPECT_THAT(c.warnings, IsEmpty());
  EXPECT_THAT(c.cells[0].warnings, IsEmpty());
  EXPECT_THAT(c.cells[1].warnings, IsEmpty());
}

TEST(CompareRunsTest, ClearDifferenceIsSignificantWithExpectedFigures) {
  Comparison c = CompareRuns(Sweep(), CompareBy::kRuntime);
  const MetricComparison* m = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->info.unit, "ms");
  // Native 10.0, 10.1, 9.9: mean 10, sd 0.1; container 12, 12.1, 11.9.
  EXPECT_EQ(m->baseline.n, 3);
  EXPECT_NEAR(m->baseline.mean, 10.0, 1e-9);
  EXPECT_NEAR(m->other.mean, 12.0, 1e-9);
  // CI: mean -+ t_{0.975, 2} x 0.1 / sqrt(3); for dof 2, P(|T| <= t) =
  // t / sqrt(2 + t^2), so t_{0.975, 2} = sqrt(2 x 0.9025 / 0.0975) = 4.302653
  // (tables: 4.303).
  const double half = 4.302652729749464 * 0.1 / std::sqrt(3.0);
  ASSERT_TRUE(m->baseline.has_ci);
  EXPECT_NEAR(m->baseline.ci_low, 10.0 - half, 1e-6);
  EXPECT_NEAR(m->baseline.ci_high, 10.0 + half, 1e-6);
  EXPECT_NEAR(m->difference_percent, 20.0, 1e-9);
  // Equal variances and n: t = 2 / sqrt(2 x 0.01 / 3) = 24.49, dof 4.
  EXPECT_TRUE(m->tested);
  EXPECT_TRUE(m->significant);
  EXPECT_NEAR(m->p_value, stats::StudentTTwoSidedP(2 / std::sqrt(0.02 / 3), 4),
              1e-12);
  EXPECT_LT(m->p_value, 1e-4);
  ASSERT_TRUE(m->has_percent_ci);
  EXPECT_GT(m->percent_ci_low, 0);
  EXPECT_LT(m->percent_ci_low, 20);
  EXPECT_GT(m->percent_ci_high, 20);

  // Throughput is 32 / time: lower for the container.
  const MetricComparison* tp = Find(c.cells[0], Metric::kThroughput);
  ASSERT_NE(tp, nullptr);
  EXPECT_LT(tp->difference_percent, 0);
  EXPECT_TRUE(tp->significant);
}

TEST(CompareRunsTest, NoiseIsNotSignificant) {
  Comparison c = CompareRuns(Sweep(), CompareBy::kRuntime);
  const MetricComparison* mb = Find(c.cells[1], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  // Native 20, 21, 19 and container 21, 19, 20: same mean.
  EXPECT_NEAR(mb->difference_percent, 0, 1e-9);
  EXPECT_TRUE(mb->tested);
  EXPECT_FALSE(mb->significant);
  EXPECT_GT(mb->p_value, 0.5);
  EXPECT_LT(mb->percent_ci_low, 0);
  EXPECT_GT(mb->percent_ci_high, 0);
  const MetricComparison* e = Find(c.cells[0], Metric::kEnergy);
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->significant);
  // Identical on every run (zero variance, equal means): not significant.
  const MetricComparison* cpu = Find(c.cells[0], Metric::kMedianCpuUtil);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->info.unit, "%");
  EXPECT_DOUBLE_EQ(cpu->baseline.mean, 50);
  EXPECT_FALSE(cpu->significant);
  EXPECT_EQ(cpu->p_value, 1);
  EXPECT_TRUE(cpu->zero_spread);
  EXPECT_FALSE(cpu->tested);
}

TEST(CompareRunsTest, ZeroSpreadDifferenceIsNotCalledSignificant) {
  // Deterministic twin-like data: SD 0 on both sides, means 0.001% apart.
  std::vector<RunMetrics> runs;
  for (int i = 0; i < 6; ++i) {
    runs.push_back(Done(i + 1, "MAXN",
                        i < 3 ? v1::RUNTIME_NATIVE : v1::RUNTIME_CONTAINER,
                        i % 3, i < 3 ? 10.0 : 10.0001, 100));
  }
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 1u);
  const MetricComparison* mb = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_TRUE(mb->has_difference);
  EXPECT_FALSE(mb->tested);
  EXPECT_FALSE(mb->significant);
  EXPECT_TRUE(mb->zero_spread);
  EXPECT_THAT(c.cells[0].warnings,
              Contains(AllOf(HasSubstr("no spread on either side for "
                                       "minibatch time"),
                             HasSubstr("not meaningful"))));
  // Energy is 100 J on every run: equal, so not in the warning.
  ASSERT_EQ(c.cells[0].warnings.size(), 1u);
  EXPECT_THAT(c.cells[0].warnings[0], Not(HasSubstr("energy")));
  const ComparisonTable t = ToTable(c);
  ASSERT_FALSE(t.rows.empty());
  EXPECT_EQ(t.rows[0][1], "minibatch time");
  EXPECT_EQ(t.rows[0].back(), "-");        // significant: no verdict
  EXPECT_EQ(t.rows[0][t.rows[0].size() - 2], "-");  // p (Welch)
}

TEST(CompareRunsTest, IntervalsOfCountsStopAtZero) {
  // Major page faults 0, 0, 9 natively: mean 3, sd 5.2, so mean - t x se is
  // far below zero; a count cannot be, so the interval starts at 0.
  std::vector<RunMetrics> runs = Sweep();
  const int faults[] = {0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0};
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].major_page_faults = faults[i];
  }
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  const MetricComparison* m = Find(c.cells[0], Metric::kMajorPageFaults);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->baseline.has_ci);
  EXPECT_NEAR(m->baseline.mean, 3, 1e-9);
  EXPECT_EQ(m->baseline.ci_low, 0);
  EXPECT_GT(m->baseline.ci_high, 3);
  // The container side has no faults at all: -100% exactly, never below.
  ASSERT_TRUE(m->has_percent_ci);
  EXPECT_GE(m->percent_ci_low, -100);
  for (const auto& row : ToTable(c).rows) {
    if (row[1] == "major page faults") {
      EXPECT_THAT(row[5], Not(HasSubstr("[-"))) << row[0];
      EXPECT_THAT(row[8], Not(HasSubstr("[-"))) << row[0];
    }
  }
}

TEST(CompareRunsTest, MetricsNoRunHasAreLeftOut) {
  Comparison c = CompareRuns(Sweep(), CompareBy::kRuntime);
  EXPECT_EQ(Find(c.cells[0], Metric::kMedianGpuUtil), nullptr);
  EXPECT_EQ(Find(c.cells[0], Metric::kPageFaults), nullptr);
  EXPECT_NE(Find(c.cells[0], Metric::kOverheadTime), nullptr);
}

// The DeepBench/Fathom comparison: a GRU kernel's launch rate native vs
// in a container (the paper's finding: lower in the container). Networks
// have neither kernel metric.
TEST(CompareRunsTest, KernelRunsCompareGflopsAndLaunchRate) {
  std::vector<RunMetrics> runs;
  const double native_rate[] = {3000, 3010, 2990};
  const double container_rate[] = {2500, 2520, 2480};
  for (int rep = 0; rep < 3; ++rep) {
    RunMetrics n = Done(1 + rep, "MAXN", v1::RUNTIME_NATIVE, rep, 10, 1);
    n.spec.mutable_workload()->set_model("rnn");
    n.kernel_launches_per_s = native_rate[rep];
    n.kernel_gflop_per_s = 20;
    RunMetrics c = Done(4 + rep, "MAXN", v1::RUNTIME_CONTAINER, rep, 12, 1);
    c.spec.mutable_workload()->set_model("rnn");
    c.kernel_launches_per_s = container_rate[rep];
    c.kernel_gflop_per_s = 16;
    runs.push_back(n);
    runs.push_back(c);
  }
  const Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 1u);
  const MetricComparison* rate = Find(c.cells[0], Metric::kKernelLaunchRate);
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->info.unit, "launches/s");
  EXPECT_NEAR(rate->baseline.mean, 3000, 1e-9);
  EXPECT_NEAR(rate->other.mean, 2500, 1e-9);
  EXPECT_NEAR(rate->difference_percent, -100.0 / 6, 1e-9);
  EXPECT_TRUE(rate->significant);
  const MetricComparison* gflops = Find(c.cells[0], Metric::kKernelGflops);
  ASSERT_NE(gflops, nullptr);
  EXPECT_NEAR(gflops->difference_percent, -20, 1e-9);

  const Comparison networks = CompareRuns(Sweep(), CompareBy::kRuntime);
  EXPECT_EQ(Find(networks.cells[0], Metric::kKernelLaunchRate), nullptr);
  EXPECT_EQ(Find(networks.cells[0], Metric::kKernelGflops), nullptr);
}

// The Appl. Sci. '23 figure: the workload's CPU time per side, when the
// agent reported it.
TEST(CompareRunsTest, WorkloadCpuTimeIsComparedWhenReported) {
  std::vector<RunMetrics> runs = Sweep();
  for (RunMetrics& r : runs) {
    r.workload_cpu_s = r.spec.runtime() == v1::RUNTIME_CONTAINER
                           ? 15.0 + 0.1 * r.spec.repetition()
                           : 10.0 + 0.1 * r.spec.repetition();
  }
  const Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  const MetricComparison* cpu = Find(c.cells[0], Metric::kWorkloadCpuTime);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->info.unit, "s");
  EXPECT_NEAR(cpu->difference_percent, 100 * 5.0 / 10.1, 1e-9);
  const Comparison none = CompareRuns(Sweep(), CompareBy::kRuntime);
  EXPECT_EQ(Find(none.cells[0], Metric::kWorkloadCpuTime), nullptr);
}

TEST(CompareRunsTest, WarnsWhenProvenanceDiffers) {
  std::vector<RunMetrics> runs = Sweep();
  runs[1].framework_fingerprint = "torch-2";  // a MAXN container run
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 2u);
  ASSERT_EQ(c.cells[0].warnings.size(), 1u);
  EXPECT_THAT(c.cells[0].warnings[0],
              HasSubstr("provenance differs: framework fingerprint"));
  EXPECT_THAT(c.cells[0].warnings[0], HasSubstr("native torch-1"));
  EXPECT_THAT(c.cells[0].warnings[0], HasSubstr("container torch-1, torch-2"));
  EXPECT_THAT(c.cells[1].warnings, IsEmpty());

  runs = Sweep();
  for (RunMetrics& r : runs) {
    if (r.spec.runtime() == v1::RUNTIME_CONTAINER) r.binary_fingerprint = "bin-2";
  }
  c = CompareRuns(runs, CompareBy::kRuntime);
  for (const CellComparison& cell : c.cells) {
    ASSERT_EQ(cell.warnings.size(), 1u);
    EXPECT_THAT(cell.warnings[0],
                HasSubstr("binary fingerprint native bin-1 vs container bin-2"));
  }
  std::vector<std::string> lines = WarningLines(c);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("MAXN: provenance differs"));
}

TEST(CompareRunsTest, WarnsWhenProvenanceIsUnknown) {
  std::vector<RunMetrics> runs = Sweep();
  runs[0].binary_fingerprint.clear();
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells[0].warnings.size(), 1u);
  EXPECT_THAT(c.cells[0].warnings[0], HasSubstr("provenance unknown"));
}

TEST(CompareRunsTest, WarnsOnFewRunsAndDifferentDevices) {
  std::vector<RunMetrics> runs = {
      Done(1, "MAXN", v1::RUNTIME_NATIVE, 0, 10.0, 100),
      Done(2, "MAXN", v1::RUNTIME_CONTAINER, 0, 12.0, 101),
      Done(3, "MAXN", v1::RUNTIME_CONTAINER, 1, 12.2, 102),
      Done(4, "15W", v1::RUNTIME_NATIVE, 0, 20.0, 80),
      Done(5, "15W", v1::RUNTIME_NATIVE, 1, 20.4, 80),
  };
  runs[2].device_id = "host-1";
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_THAT(c.cells[0].warnings,
              ElementsAre(HasSubstr("only 1 native run"),
                          HasSubstr("different devices: native on host-0, "
                                    "container on host-0, host-1")));
  const MetricComparison* m = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->tested);
  EXPECT_FALSE(m->baseline.has_ci);
  EXPECT_TRUE(m->other.has_ci);
  EXPECT_NEAR(m->difference_percent, 21, 1e-9);
  EXPECT_FALSE(m->has_percent_ci);
  EXPECT_THAT(c.cells[1].warnings, ElementsAre(HasSubstr("no container runs")));
  const MetricComparison* only = Find(c.cells[1], Metric::kMinibatchTime);
  ASSERT_NE(only, nullptr);
  EXPECT_EQ(only->other.n, 0);
  EXPECT_FALSE(only->has_difference);
}

TEST(CompareRunsTest, RunsThatAreNotDoneAreLeftOutWithAWarning) {
  std::vector<RunMetrics> runs = Sweep();
  runs[0].state = v1::RUN_STATE_FAILED;
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  EXPECT_THAT(c.warnings, ElementsAre(HasSubstr("1 runs that are not done")));
  EXPECT_THAT(c.cells[0].baseline_run_ids, ElementsAre(5, 9));
}

TEST(CompareRunsTest, CellsDifferingOnlyOutsideTheLabelGetDistinctLabels) {
  std::vector<RunMetrics> runs = {
      Done(1, "MAXN", v1::RUNTIME_NATIVE, 0, 10.0, 100),
      Done(2, "MAXN", v1::RUNTIME_NATIVE, 0, 10.0, 100),
  };
  runs[1].spec.mutable_workload()->set_seed(7);
  Comparison c = CompareRuns(runs, CompareBy::kRuntime);
  ASSERT_EQ(c.cells.size(), 2u);
  EXPECT_NE(c.cells[0].label, c.cells[1].label);
  EXPECT_THAT(c.cells[1].label, HasSubstr("#2"));
}

TEST(CompareRunsTest, ByDeviceSidesAreTheDevicesTheRunsRanOn) {
  // Native runs only, on three devices; host-b is 15% slower.
  std::vector<RunMetrics> runs;
  const char* devices[] = {"host-a", "host-b", "host-c"};
  int64_t id = 1;
  for (int rep = 0; rep < 3; ++rep) {
    for (int d = 0; d < 3; ++d) {
      const double ms = (d == 1 ? 11.5 : 10.0) + 0.1 * rep;
      runs.push_back(Done(id++, "MAXN", v1::RUNTIME_NATIVE, rep, ms, 100));
      runs.back().device_id = devices[d];
    }
  }
  const CompareDimension dim =
      ParseCompareDimension("device", {"host-a", "host-b"}).value();
  const Comparison c = CompareRuns(runs, dim);
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_THAT(c.cells[0].baseline_run_ids, ElementsAre(1, 4, 7));
  EXPECT_THAT(c.cells[0].other_run_ids, ElementsAre(2, 5, 8));
  const MetricComparison* mb = Find(c.cells[0], Metric::kMinibatchTime);
  ASSERT_NE(mb, nullptr);
  EXPECT_NEAR(mb->difference_percent, 100 * 1.5 / 10.1, 1e-9);
  EXPECT_TRUE(mb->significant);
  // Different devices are the point here: no warning about them.
  EXPECT_THAT(c.cells[0].warnings, IsEmpty());
  EXPECT_THAT(c.warnings,
              ElementsAre("3 runs on other devices than host-a and host-b "
                          "were left out"));
  const ComparisonTable t = ToTable(c);
  EXPECT_EQ(t.header[3], "n host-a");
  EXPECT_EQ(t.header[7], "mean host-b");
}

TEST(CompareRunsTest, TwinFingerprintsAreNotComparedAsBuilds) {
  std::vector<RunMetrics> runs;
  for (int rep = 0; rep < 2; ++rep) {
    for (const char* device : {"twin-0", "twin-1"}) {
      runs.push_back(Done(static_cast<int64_t>(runs.size()) + 1, "MAXN",
                          v1::RUNTIME_NATIVE, rep, 10.0, 100));
      runs.back().device_id = device;
      runs.back().framework = "twin-model";
      runs.back().binary_fingerprint =
          std::string("twin:orin-agx:seed=42:instance=") + device;
    }
  }
  const CompareDimension dim =
      ParseCompareDimension("device", {"twin-0", "twin-1"}).value();
  Comparison c = CompareRuns(runs, dim);
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_THAT(c.cells[0].warnings,
              Not(Contains(HasSubstr("binary fingerprint"))));
  // The same fingerprints on real (libtorch) runs are different builds.
  for (RunMetrics& r : runs) r.framework = "libtorch";
  c = CompareRuns(runs, dim);
  EXPECT_THAT(c.cells[0].warnings,
              Contains(HasSubstr("provenance differs: binary fingerprint")));
}

TEST(CompareRunsTest, ByDeviceWarnsWhenANamedDeviceHasNoRuns) {
  std::vector<RunMetrics> runs = Sweep();
  const Comparison c = CompareRuns(
      runs, ParseCompareDimension("device", {"host-0", "host-9"}).value());
  EXPECT_THAT(c.warnings,
              ElementsAre("device host-9 has no done runs in this sweep"));
  ASSERT_FALSE(c.cells.empty());
  EXPECT_THAT(c.cells[0].warnings, Contains(HasSubstr("no host-9 runs")));
}

// A typo in --devices, or a sweep without container runs: an error that
// names the missing side, not a table of one-sided cells.
TEST(CheckSidesTest, AnAbsentSideIsAnErrorNamingIt) {
  std::vector<RunMetrics> runs = Sweep();
  runs[1].device_id = "host-1";
  const Comparison typo = CompareRuns(
      runs, ParseCompareDimension("device", {"host-0", "host-9"}).value());
  const absl::Status st = CheckSides(typo, 4);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(),
            "device host-9 ran no done run of sweep 4 (devices with done "
            "runs: host-0, host-1)");
  EXPECT_TRUE(CheckSides(CompareRuns(runs, ParseCompareDimension(
                                               "device", {"host-0", "host-1"})
                                               .value()),
                         4)
                  .ok());

  std::vector<RunMetrics> native;
  for (const RunMetrics& r : Sweep()) {
    if (r.spec.runtime() == v1::RUNTIME_NATIVE) native.push_back(r);
  }
  const absl::Status none = CheckSides(
      CompareRuns(native, ParseCompareDimension("runtime", {}).value()), 7);
  EXPECT_EQ(none.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(none.message(),
            "sweep 7 has no done container runs to compare with native "
            "(compare --by runtime)");
  EXPECT_TRUE(CheckSides(CompareRuns(Sweep(), ParseCompareDimension(
                                                  "runtime", {})
                                                  .value()),
                         7)
                  .ok());
}

TEST(ToTableTest, RowsPerCellAndMetric) {
  Comparison c = CompareRuns(Sweep(), CompareBy::kRuntime);
  ComparisonTable t = ToTable(c);
  ASSERT_EQ(t.header.size(), 13u);
  EXPECT_EQ(t.header[3], "n native");
  EXPECT_EQ(t.header[7], "mean container");
  EXPECT_EQ(t.header[11], "p (Welch)");
  EXPECT_EQ(t.numeric.size(), t.header.size());
  size_t metrics = c.cells[0].metrics.size() + c.cells[1].metrics.size();
  ASSERT_EQ(t.rows.size(), metrics);
  for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.header.size());
  const auto& first = t.rows[0];  // MAXN, minibatch time
  EXPECT_THAT(first[0], HasSubstr("MAXN"));
  EXPECT_EQ(first[1], "minibatch time");
  EXPECT_EQ(first[2], "ms");
  EXPECT_EQ(first[3], "3");
  EXPECT_EQ(first[4], "10");
  EXPECT_EQ(first[5], "[9.752, 10.25]");  // 10 -+ 0.2484
  EXPECT_EQ(first[7], "12");
  EXPECT_EQ(first[9], "+20.00");
  EXPECT_EQ(first[12], "yes");
  auto noisy = std::find_if(t.rows.begin(), t.rows.end(), [](const auto& r) {
    return r[0].find("15W") != std::string::npos && r[1] == "minibatch time";
  });
  ASSERT_NE(noisy, t.rows.end());
  EXPECT_EQ((*noisy)[9], "+0.00");
  EXPECT_EQ((*noisy)[12], "no");
}

TEST(ToTableTest, MissingFiguresAreDashes) {
  std::vector<RunMetrics> runs = {
      Done(1, "MAXN", v1::RUNTIME_NATIVE, 0, 10.0, 100)};
  ComparisonTable t = ToTable(CompareRuns(runs, CompareBy::kRuntime));
  ASSERT_FALSE(t.rows.empty());
  const auto& row = t.rows[0];
  EXPECT_EQ(row[5], "-");   // one run: no CI
  EXPECT_EQ(row[6], "0");   // no container runs
  EXPECT_EQ(row[7], "-");
  EXPECT_EQ(row[9], "-");
  EXPECT_EQ(row[11], "-");
  EXPECT_EQ(row[12], "-");
}

}  // namespace
}  // namespace powersweep
