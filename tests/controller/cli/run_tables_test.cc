// The runs and summary tables show each run's energy, mean power,
// incremental energy over the baseload and where the power came from.
#include "controller/cli/run_tables.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/cli/done_run.h"

namespace powersweep {
namespace {

std::string Cell(const Table& t, size_t row, const std::string& column) {
  auto it = std::find(t.header.begin(), t.header.end(), column);
  EXPECT_NE(it, t.header.end()) << column;
  if (it == t.header.end()) return "";
  return t.rows.at(row).at(it - t.header.begin());
}

v1::RunStatus BaseloadRun(int64_t id, double energy_j, double duration_s,
                          int64_t baseload_run_id, double incremental_j) {
  v1::RunStatus r = DoneRun(id, 0.1, duration_s, energy_j);
  r.mutable_summary()->set_baseload_run_id(baseload_run_id);
  r.mutable_summary()->set_incremental_energy_j(incremental_j);
  return r;
}

TEST(RunTablesTest, RunsTableShowsEnergyPowerIncrementalAndSource) {
  v1::RunStatus with = BaseloadRun(1, 50, 10, 7, 20);
  v1::RunStatus without = BaseloadRun(2, 0, 10, 0, 0);
  const Table t = RunsTable({with, without});
  EXPECT_EQ(t.header.size(), t.numeric.size());
  EXPECT_EQ(Cell(t, 0, "energy_j"), "50.0");
  EXPECT_EQ(Cell(t, 0, "power_w"), "5.00");
  EXPECT_EQ(Cell(t, 0, "incr_energy_j"), "20.0");
  EXPECT_EQ(Cell(t, 0, "baseload_run"), "7");  // which baseload it used
  EXPECT_EQ(Cell(t, 0, "energy_source"), "simulated");
  EXPECT_EQ(Cell(t, 1, "energy_j"), "-");
  EXPECT_EQ(Cell(t, 1, "incr_energy_j"), "-");
  EXPECT_EQ(Cell(t, 1, "baseload_run"), "-");
  EXPECT_EQ(Cell(t, 1, "energy_source"), "-");
}

// The first power reading comes 0.25 s into a 10 s run: the energy covers
// 9.75 s, and the power column is the energy over those 9.75 s (the
// summary's mean_power_mw), not over the run's duration.
TEST(RunTablesTest, PowerIsEnergyOverTheSpanItCovers) {
  v1::RunStatus run = BaseloadRun(1, 39, 10, 0, 0);
  run.mutable_summary()->set_energy_span_s(9.75);
  run.mutable_summary()->set_mean_power_mw(4000);
  EXPECT_EQ(Cell(RunsTable({run}), 0, "power_w"), "4.00");
  EXPECT_EQ(Cell(SummaryTable({run}), 0, "power_w"), "4.00");
}

// A host run that overlapped another job is flagged; an unmeasured one
// (twin, container) shows "-".
TEST(RunTablesTest, RunsTableFlagsABusyHost) {
  v1::RunStatus busy = DoneRun(1, 0.1, 10, 50);
  busy.mutable_summary()->set_other_cpu_cores(1.3);
  v1::RunStatus quiet = DoneRun(2, 0.1, 10, 50);
  quiet.mutable_summary()->set_other_cpu_cores(0.02);
  v1::RunStatus twin = DoneRun(3, 0.1, 10, 50);
  const Table t = RunsTable({busy, quiet, twin});
  EXPECT_EQ(t.header.size(), t.numeric.size());
  EXPECT_EQ(Cell(t, 0, "other_cpu"), "1.30");
  EXPECT_EQ(Cell(t, 0, "host_busy"), "yes");
  EXPECT_EQ(Cell(t, 1, "other_cpu"), "0.02");
  EXPECT_EQ(Cell(t, 1, "host_busy"), "no");
  EXPECT_EQ(Cell(t, 2, "other_cpu"), "-");
  EXPECT_EQ(Cell(t, 2, "host_busy"), "-");
}

TEST(RunTablesTest, RunsTableShowsTheAttempt) {
  v1::RunStatus run = DoneRun(1, 0.1, 10, 50);
  run.mutable_spec()->set_attempt(3);
  EXPECT_EQ(Cell(RunsTable({run}), 0, "attempt"), "3");
}

TEST(RunTablesTest, NoLossIsADashNotZero) {
  v1::RunStatus run = DoneRun(1, 0.1, 10, 50);
  EXPECT_EQ(Cell(RunsTable({run}), 0, "loss_first"), "-");
  run.mutable_summary()->set_first_loss(0);
  run.mutable_summary()->set_last_loss(0.25);
  EXPECT_EQ(Cell(RunsTable({run}), 0, "loss_first"), "0.000");
  EXPECT_EQ(Cell(RunsTable({run}), 0, "loss_last"), "0.250");
}

TEST(RunTablesTest, RunsTableShowsTokenRatesAndLatenciesOfSequenceModels) {
  v1::RunStatus gpt2 = DoneRun(1, 0.1, 10, 50);
  gpt2.mutable_summary()->set_tokens_per_s(1234.4);
  gpt2.mutable_summary()->set_mean_ttft_s(0.2501);
  gpt2.mutable_summary()->set_mean_per_token_s(0.012345);
  const v1::RunStatus image = DoneRun(2, 0.1, 10, 50);
  const Table t = RunsTable({gpt2, image});
  EXPECT_EQ(t.header.size(), t.numeric.size());
  EXPECT_EQ(Cell(t, 0, "tokens_per_s"), "1234");
  EXPECT_EQ(Cell(t, 0, "ttft_ms"), "250.1");
  EXPECT_EQ(Cell(t, 0, "ms_per_token"), "12.35");
  EXPECT_EQ(Cell(t, 1, "tokens_per_s"), "-");
  EXPECT_EQ(Cell(t, 1, "ttft_ms"), "-");
  EXPECT_EQ(Cell(t, 1, "ms_per_token"), "-");
}

// Kernel runs show achieved GFLOP/s and launches per second; networks a
// dash. The summary gets those columns only when a kernel run is done.
TEST(RunTablesTest, KernelRunsShowGflopsAndLaunchRate) {
  v1::RunStatus gru = DoneRun(1, 0.1, 10, 50);
  gru.mutable_spec()->mutable_workload()->set_model("rnn");
  gru.mutable_summary()->set_kernel_gflop_per_s(12.345);
  gru.mutable_summary()->set_kernel_launches_per_s(3456.7);
  v1::RunStatus gru2 = gru;
  gru2.mutable_spec()->set_run_id(2);
  gru2.mutable_summary()->set_kernel_gflop_per_s(14.345);
  gru2.mutable_summary()->set_kernel_launches_per_s(3856.7);
  const v1::RunStatus image = DoneRun(3, 0.1, 10, 50);
  const Table runs = RunsTable({gru, image});
  EXPECT_EQ(runs.header.size(), runs.numeric.size());
  EXPECT_EQ(Cell(runs, 0, "gflop_s"), "12.35");
  EXPECT_EQ(Cell(runs, 0, "launches_per_s"), "3457");
  EXPECT_EQ(Cell(runs, 1, "gflop_s"), "-");
  EXPECT_EQ(Cell(runs, 1, "launches_per_s"), "-");

  const Table summary = SummaryTable({gru, gru2, image});
  ASSERT_EQ(summary.rows.size(), 2u);
  EXPECT_EQ(summary.header.size(), summary.numeric.size());
  EXPECT_EQ(summary.header.size(), summary.mean_sd.size());
  EXPECT_EQ(summary.header.size(), summary.rows[0].size());
  EXPECT_EQ(Cell(summary, 0, "gflop_s"), "13.35 ± 1.41");
  EXPECT_EQ(Cell(summary, 0, "launches_per_s"), "3657 ± 283");
  EXPECT_EQ(Cell(summary, 1, "gflop_s"), "-");
  const Table networks = SummaryTable({image});
  EXPECT_EQ(std::find(networks.header.begin(), networks.header.end(),
                      "gflop_s"),
            networks.header.end());
}

TEST(RunTablesTest, SummaryTableAveragesEnergyOverTheCell) {
  const Table t =
      SummaryTable({BaseloadRun(1, 40, 10, 7, 10),
                    BaseloadRun(2, 60, 10, 7, 30)});
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.header.size(), t.numeric.size());
  EXPECT_EQ(Cell(t, 0, "energy_j"), "50.0 ± 14.1");
  EXPECT_EQ(Cell(t, 0, "power_w"), "5.00 ± 1.41");
  EXPECT_EQ(Cell(t, 0, "incr_energy_j"), "20.0 ± 14.1");
  EXPECT_EQ(Cell(t, 0, "energy_source"), "simulated");
}

TEST(RunTablesTest, WorkloadAndLoaderKnobsSeparateCells) {
  v1::RunStatus keep = BaseloadRun(1, 40, 10, 7, 10);
  keep.mutable_spec()->mutable_workload()->set_dataset("gld23k");
  keep.mutable_spec()->mutable_workload()->set_loader_workers(4);
  v1::RunStatus drop = keep;
  drop.mutable_spec()->mutable_workload()->set_page_cache(v1::PAGE_CACHE_DROP);
  drop.mutable_spec()->mutable_workload()->set_prefetch_depth(8);
  const Table t = SummaryTable({keep, drop});
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(Cell(t, 0, "model"), "lenet5/gld23k");
  EXPECT_EQ(Cell(t, 0, "workers"), "4");
  EXPECT_EQ(Cell(t, 1, "workers"), "4 depth=8 drop");
  const Table runs = RunsTable({drop});
  EXPECT_EQ(Cell(runs, 0, "workers"), "4 depth=8 drop");
}

}  // namespace
}  // namespace powersweep
