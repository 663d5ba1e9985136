// The numbers behind `powersweep report`'s figures: what each figure's CSV
// holds for a sweep, and the sentence a figure that does not apply is left
// out with.
#include "controller/cli/report_figures.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Cell(const Table& t, size_t row, const std::string& column) {
  auto it = std::find(t.header.begin(), t.header.end(), column);
  EXPECT_NE(it, t.header.end()) << column;
  if (it == t.header.end() || row >= t.rows.size()) return "";
  return t.rows[row][it - t.header.begin()];
}

// A done LeNet-5 training run on an Orin twin at `preset`.
v1::RunStatus DoneRun(int64_t id, const std::string& preset, double ms,
                  double energy_j, const std::string& device = "orin-0") {
  v1::RunStatus r;
  v1::RunSpec* s = r.mutable_spec();
  s->set_run_id(id);
  s->set_sweep_id(1);
  s->set_attempt(1);
  s->set_device_class("orin-agx");
  s->mutable_workload()->set_model("lenet5");
  s->mutable_workload()->set_dataset("fashion-mnist");
  s->mutable_workload()->set_task(v1::TASK_TRAIN);
  s->mutable_workload()->set_batch_size(64);
  s->mutable_workload()->set_loader_workers(1);
  s->mutable_power_mode()->set_preset(preset);
  s->set_runtime(v1::RUNTIME_NATIVE);
  r.set_state(v1::RUN_STATE_DONE);
  r.set_device_id(device);
  v1::RunSummary* m = r.mutable_summary();
  m->set_minibatches(100);
  m->set_mean_minibatch_s(ms / 1e3);
  m->set_mean_stall_s(ms / 1e3 * 0.25);
  m->set_mean_compute_s(ms / 1e3 * 0.5);
  m->set_energy_j(energy_j);
  m->set_energy_provenance(v1::PROVENANCE_SIMULATED);
  return r;
}

v1::RunStatus Baseload(int64_t id) {
  v1::RunStatus r = DoneRun(id, "MAXN", 0, 5);
  r.mutable_spec()->mutable_workload()->set_task(v1::TASK_BASELOAD);
  r.mutable_summary()->set_minibatches(0);
  return r;
}

ReportInputs Inputs(std::vector<v1::RunStatus> runs) {
  ReportInputs in;
  in.sweep_id = 1;
  in.runs = std::move(runs);
  in.platforms = {{"orin-0", "twin"}, {"orin-1", "twin"}};
  return in;
}

TEST(ReportParetoTest, MeasuredModesPerMinibatchWithTheFrontAndTheMarks) {
  // MODE_15W is slower and costs more than MODE_30W: not on the front.
  ReportInputs in = Inputs({DoneRun(1, "MAXN", 4, 10), DoneRun(2, "MODE_30W", 6, 6),
                            DoneRun(3, "MODE_15W", 8, 7), DoneRun(4, "MAXN", 6, 10)});
  FigureTable f = ParetoFigure(in);
  EXPECT_THAT(f.omitted, IsEmpty());
  ASSERT_EQ(f.table.rows.size(), 3u);  // one point per mode
  EXPECT_EQ(Cell(f.table, 0, "panel"),
            "orin-agx lenet5/fashion-mnist train bs64 w1 native");
  EXPECT_EQ(Cell(f.table, 0, "mode"), "MAXN");
  EXPECT_EQ(Cell(f.table, 0, "mark"), "MAXN");
  EXPECT_EQ(Cell(f.table, 0, "time"), "5");     // mean of 4 and 6 ms
  EXPECT_EQ(Cell(f.table, 0, "energy"), "100");  // 10 J / 100 minibatches
  EXPECT_EQ(Cell(f.table, 0, "time_unit"), "ms per minibatch");
  EXPECT_EQ(Cell(f.table, 0, "energy_unit"), "mJ per minibatch");
  EXPECT_EQ(Cell(f.table, 0, "on_front"), "1");
  EXPECT_EQ(Cell(f.table, 1, "mark"), "nvpmodel default MODE_30W");
  EXPECT_EQ(Cell(f.table, 1, "on_front"), "1");
  EXPECT_EQ(Cell(f.table, 2, "on_front"), "0");
  EXPECT_EQ(Cell(f.table, 2, "provenance"), "simulated");
  EXPECT_EQ(Cell(f.table, 2, "preset"), "MODE_15W");  // the point's label
  EXPECT_THAT(f.note, HasSubstr("powersweep fit --sweep 1"));
}

TEST(ReportParetoTest, RunsWithoutAModelCountTheMinibatchesEnergyOnly) {
  // The whole run's energy includes start-up, which is longer in a slow
  // mode: per minibatch that made MODE_15W look cheaper than MAXN (90 vs
  // 100 mJ) although its minibatches cost more (85 vs 80 mJ), the energy
  // the models use.
  v1::RunStatus maxn = DoneRun(1, "MAXN", 4, 10);
  maxn.mutable_summary()->set_energy_stall_j(2);
  maxn.mutable_summary()->set_energy_compute_j(6);
  v1::RunStatus slow = DoneRun(2, "MODE_15W", 8, 9);
  slow.mutable_summary()->set_energy_stall_j(2.5);
  slow.mutable_summary()->set_energy_compute_j(6);
  // Without a phase split: mean power x mean minibatch time.
  v1::RunStatus unsplit = DoneRun(3, "MODE_30W", 6, 20);
  unsplit.mutable_summary()->set_mean_power_mw(12000);
  FigureTable f = ParetoFigure(Inputs({maxn, slow, unsplit}));
  ASSERT_EQ(f.table.rows.size(), 3u);
  EXPECT_EQ(Cell(f.table, 0, "energy"), "80");
  EXPECT_EQ(Cell(f.table, 1, "energy"), "85");
  EXPECT_EQ(Cell(f.table, 1, "on_front"), "0");
  EXPECT_EQ(Cell(f.table, 2, "energy"), "72");  // 12 W x 6 ms
  EXPECT_THAT(f.note, HasSubstr("stall and compute phases"));
}

TEST(ReportParetoTest, AFittedModelGivesEpochFiguresAndThePredictedFront) {
  ReportInputs in = Inputs({DoneRun(1, "MAXN", 4, 10)});
  ReportModel m;
  m.model.set_model_id(7);
  m.model.set_device_class("orin-agx");
  m.model.set_model("lenet5");
  m.model.set_dataset("fashion-mnist");
  m.model.set_task(v1::TASK_TRAIN);
  m.model.set_batch_size(64);
  m.model.set_loader_workers(1);
  m.model.set_runtime(v1::RUNTIME_NATIVE);
  m.model.set_energy_provenance(v1::PROVENANCE_SIMULATED);
  m.model.mutable_epoch()->set_unit("epoch");
  v1::MeasuredMode* mm = m.model.add_measured();
  mm->mutable_mode()->set_cpu_cores(12);
  mm->set_epoch_time_s(4.5);
  mm->set_epoch_energy_j(90);
  mm->add_run_ids(1);  // run 1 asked for MAXN
  m.has_pareto = true;
  for (double t : {4.0, 6.0, -1.0}) {  // -1: an extrapolation past zero
    v1::ModePrediction* p = m.pareto.add_front();
    p->set_epoch_time_s(t);
    p->set_has_energy(true);
    p->set_epoch_energy_j(500 / t);
  }
  m.pareto.set_default_evaluated(true);
  m.pareto.set_default_mode_name("MAXN");
  m.pareto.mutable_default_mode()->set_has_energy(true);
  m.pareto.mutable_default_mode()->set_epoch_time_s(4.0);
  m.pareto.mutable_default_mode()->set_epoch_energy_j(125);
  in.models.push_back(m);
  FigureTable f = ParetoFigure(in);
  // The panel has a model: its runs are not shown per minibatch too.
  ASSERT_EQ(f.table.rows.size(), 4u);
  EXPECT_EQ(Cell(f.table, 0, "kind"), "measured");
  EXPECT_EQ(Cell(f.table, 0, "time"), "4.5");
  EXPECT_EQ(Cell(f.table, 0, "time_unit"), "s per epoch");
  EXPECT_EQ(Cell(f.table, 0, "mark"), "MAXN");
  // The model keeps the knobs; the label is the preset the runs asked for.
  EXPECT_EQ(Cell(f.table, 0, "preset"), "MAXN");
  EXPECT_EQ(Cell(f.table, 1, "kind"), "predicted_front");
  EXPECT_EQ(Cell(f.table, 2, "energy"), "83.3333");
  EXPECT_EQ(Cell(f.table, 3, "kind"), "predicted");
  EXPECT_EQ(Cell(f.table, 3, "mark"), "MAXN");
  EXPECT_EQ(Cell(f.table, 3, "preset"), "MAXN");
  EXPECT_EQ(Cell(f.table, 3, "provenance"), "simulated");
  EXPECT_THAT(f.note, HasSubstr("1 predicted mode(s) with no time or energy"));
}

TEST(ReportParetoTest, LeftOutWithoutEnergy) {
  FigureTable f = ParetoFigure(Inputs({DoneRun(1, "MAXN", 4, 0)}));
  EXPECT_THAT(f.omitted, HasSubstr("no power readings"));
}

TEST(ReportParetoTest, TheLatestClassModelOfEachWorkload) {
  std::vector<v1::WorkloadModel> models(4);
  models[0].set_model_id(1);
  models[0].set_model("lenet5");
  models[1].set_model_id(2);
  models[1].set_model("lenet5");
  models[1].set_instances("offsets");
  models[2].set_model_id(3);
  models[2].set_model("lenet5");
  models[2].set_device_id("orin-0");  // a per-device model
  models[3].set_model_id(4);
  models[3].set_model("resnet18");
  std::vector<int64_t> ids;
  for (const v1::WorkloadModel& m : LatestClassModels(models)) {
    ids.push_back(m.model_id());
  }
  EXPECT_THAT(ids, ::testing::ElementsAre(2, 4));
}

TEST(ReportMinibatchTimeTest, MeanStallComputeAndOverheadPerCell) {
  FigureTable f = MinibatchTimeFigure(
      Inputs({DoneRun(1, "MAXN", 4, 10), Baseload(2), DoneRun(3, "MAXN", 8, 10)}));
  ASSERT_EQ(f.table.rows.size(), 1u);  // the baseload run is no cell
  EXPECT_EQ(Cell(f.table, 0, "cell"),
            "orin-agx lenet5/fashion-mnist train bs64 w1 native | MAXN");
  EXPECT_EQ(Cell(f.table, 0, "runs"), "2");
  EXPECT_EQ(Cell(f.table, 0, "stall_ms"), "1.5");
  EXPECT_EQ(Cell(f.table, 0, "compute_ms"), "3");
  EXPECT_EQ(Cell(f.table, 0, "overhead_ms"), "1.5");
  EXPECT_EQ(Cell(f.table, 0, "provenance"), "simulated");  // a twin
}

TEST(ReportEnergySplitTest, BaseloadAndIncrementalPerCellOrWhyNot) {
  EXPECT_THAT(EnergySplitFigure(Inputs({DoneRun(1, "MAXN", 4, 10)})).omitted,
              HasSubstr("baseload"));
  v1::RunStatus r = DoneRun(1, "MAXN", 4, 10);
  r.mutable_summary()->set_baseload_run_id(9);
  r.mutable_summary()->set_baseload_power_mw(2500);
  r.mutable_summary()->set_incremental_energy_j(4);
  FigureTable f = EnergySplitFigure(Inputs({r}));
  ASSERT_EQ(f.table.rows.size(), 1u);
  EXPECT_EQ(Cell(f.table, 0, "baseload_j"), "6");
  EXPECT_EQ(Cell(f.table, 0, "incremental_j"), "4");
  EXPECT_EQ(Cell(f.table, 0, "baseload_power_w"), "2.5");
}

TEST(ReportVariabilityTest, OnlyCellsRunOnSeveralDevices) {
  EXPECT_THAT(VariabilityFigure(Inputs({DoneRun(1, "MAXN", 4, 10),
                                        DoneRun(2, "MAXN", 5, 10)}))
                  .omitted,
              HasSubstr("single device"));
  FigureTable f = VariabilityFigure(
      Inputs({DoneRun(1, "MAXN", 4, 10, "orin-1"), DoneRun(2, "MAXN", 5, 11),
              DoneRun(3, "MODE_15W", 5, 11), DoneRun(4, "MAXN", 6, 12, "orin-1")}));
  ASSERT_EQ(f.table.rows.size(), 3u);  // MODE_15W ran on one device only
  EXPECT_EQ(Cell(f.table, 0, "device_id"), "orin-0");
  EXPECT_EQ(Cell(f.table, 0, "run_id"), "2");
  EXPECT_EQ(Cell(f.table, 2, "minibatch_ms"), "6");
  EXPECT_EQ(Cell(f.table, 2, "energy_j"), "12");
  EXPECT_EQ(Cell(f.table, 0, "minibatch_outlier"), "0");
}

TEST(ReportVariabilityTest, CarriesTheOutliersTheAnalysisFound) {
  ReportInputs in =
      Inputs({DoneRun(1, "MAXN", 4, 10, "orin-1"), DoneRun(2, "MAXN", 5, 11),
              DoneRun(4, "MAXN", 6, 12, "orin-1")});
  in.outlier_runs["minibatch_time"] = {1, 4};  // orin-1, on time only
  FigureTable f = VariabilityFigure(in);
  ASSERT_EQ(f.table.rows.size(), 3u);
  EXPECT_EQ(Cell(f.table, 0, "device_id"), "orin-0");
  EXPECT_EQ(Cell(f.table, 0, "minibatch_outlier"), "0");
  EXPECT_EQ(Cell(f.table, 1, "minibatch_outlier"), "1");
  EXPECT_EQ(Cell(f.table, 2, "minibatch_outlier"), "1");
  EXPECT_EQ(Cell(f.table, 1, "energy_outlier"), "0");
}

TEST(ReportHeldOutTest, EveryHeldOutModeOrWhyNot) {
  EXPECT_THAT(HeldOutFigure(Inputs({})).omitted,
              HasSubstr("powersweep fit --sweep 1"));
  ReportInputs in = Inputs({});
  ReportModel m;
  m.model.set_model_id(3);
  m.model.set_time_provenance(v1::PROVENANCE_SIMULATED);
  m.model.mutable_time_model()->set_target("time");
  v1::HeldOutModeError* e = m.model.mutable_time_model()->add_held_out();
  e->mutable_mode()->set_preset("MODE_15W");
  e->set_observations(2);
  e->set_observed(10);
  e->set_predicted(11);
  e->set_ape_pct(10);
  in.models.push_back(m);
  FigureTable f = HeldOutFigure(in);
  ASSERT_EQ(f.table.rows.size(), 1u);
  EXPECT_EQ(Cell(f.table, 0, "mode"), "MODE_15W");
  EXPECT_EQ(Cell(f.table, 0, "unit"), "s per epoch");
  EXPECT_EQ(Cell(f.table, 0, "ape_pct"), "10");
  EXPECT_EQ(Cell(f.table, 0, "provenance"), "simulated");
}

TelemetryRow Sample(int64_t run, int attempt, double t, double power_mw) {
  TelemetryRow s;
  s.run_id = run;
  s.attempt = attempt;
  s.t_s = t;
  s.cpu_util = 0.5;
  s.gpu_util = 0.25;
  s.power_mw = power_mw;
  s.provenance = "simulated";
  return s;
}

TEST(ReportDistributionsTest, NativeVsContainerOrWhyNot) {
  ReportInputs native = Inputs({DoneRun(1, "MAXN", 4, 10)});
  native.telemetry = {Sample(1, 1, 0, 5000)};
  EXPECT_THAT(DistributionsFigure(native).omitted,
              HasSubstr("no done container, vm or container_in_vm runs"));
  v1::RunStatus c = DoneRun(2, "MAXN", 4, 10);
  c.mutable_spec()->set_runtime(v1::RUNTIME_CONTAINER);
  c.mutable_spec()->set_attempt(2);
  ReportInputs both = Inputs({DoneRun(1, "MAXN", 4, 10), c});
  // Run 2's first attempt is not its current one.
  both.telemetry = {Sample(1, 1, 0, 5000), Sample(2, 1, 0, 6000),
                    Sample(2, 2, 0, 7000)};
  FigureTable f = DistributionsFigure(both);
  ASSERT_EQ(f.table.rows.size(), 2u);
  EXPECT_EQ(Cell(f.table, 1, "runtime"), "container");
  EXPECT_EQ(Cell(f.table, 1, "power_w"), "7");
  EXPECT_EQ(Cell(f.table, 1, "cpu_util_pct"), "50");
  EXPECT_EQ(Cell(f.table, 1, "gpu_util_pct"), "25");
}

TEST(ReportTimelineTest, TheFirstDoneWorkloadRunUnlessOneIsChosen) {
  v1::RunStatus failed = DoneRun(1, "MAXN", 4, 10);
  failed.set_state(v1::RUN_STATE_FAILED);
  std::vector<v1::RunStatus> runs = {failed, Baseload(2), DoneRun(3, "MAXN", 4, 10)};
  EXPECT_EQ(*ChooseTimelineRun(runs, 0), 3);
  EXPECT_EQ(*ChooseTimelineRun(runs, 2), 2);
  EXPECT_THAT(std::string(ChooseTimelineRun(runs, 1).status().message()),
              HasSubstr("--run: run 1 is failed"));
  EXPECT_THAT(std::string(ChooseTimelineRun(runs, 99).status().message()),
              HasSubstr("--run: run 99 is not a run of sweep 1"));
  EXPECT_EQ(*ChooseTimelineRun({failed}, 0), 0);

  ReportInputs in = Inputs(runs);
  in.timeline_run_id = 3;
  in.telemetry = {Sample(1, 1, 0, 1000), Sample(3, 1, 0.5, 4000),
                  Sample(3, 1, 1.0, 0)};
  FigureTable f = TimelineFigure(in);
  ASSERT_EQ(f.table.rows.size(), 2u);
  EXPECT_EQ(Cell(f.table, 0, "t_s"), "0.5");
  EXPECT_EQ(Cell(f.table, 0, "power_w"), "4");
  EXPECT_EQ(Cell(f.table, 1, "power_w"), "");  // no reading
  EXPECT_THAT(f.note, HasSubstr("Run 3 on orin-0"));
  in.telemetry.clear();
  EXPECT_THAT(TimelineFigure(in).omitted, HasSubstr("no telemetry samples"));
}

// A run of ResNet-50 training on `dataset` with `samples_per_s`, natively
// on a host (measured).
v1::RunStatus DataRun(int64_t id, const std::string& dataset,
                      double samples_per_s) {
  v1::RunStatus r = DoneRun(id, "MAXN", 80, 10, "host-0");
  r.mutable_spec()->set_device_class("host");
  r.mutable_spec()->mutable_workload()->set_model("resnet50");
  r.mutable_spec()->mutable_workload()->set_dataset(dataset);
  r.mutable_summary()->set_samples_per_s(samples_per_s);
  r.mutable_summary()->set_duration_s(3);
  return r;
}

TEST(ReportSyntheticVsRealTest, ThroughputPerDataSetWithTheChangeInPercent) {
  ReportInputs in = Inputs({DataRun(1, "synthetic", 100),
                            DataRun(2, "imagenet", 70),
                            DataRun(3, "synthetic", 110),
                            DataRun(4, "imagenet", 77), Baseload(5),
                            // A cell without a synthetic side: no row.
                            DoneRun(6, "MAXN", 4, 10)});
  in.platforms["host-0"] = "host";
  FigureTable f = SyntheticVsRealFigure(in);
  EXPECT_THAT(f.omitted, IsEmpty());
  ASSERT_EQ(f.table.rows.size(), 2u);
  EXPECT_EQ(Cell(f.table, 0, "cell"),
            "host resnet50 train bs64 w1 native | MAXN");
  EXPECT_EQ(Cell(f.table, 0, "data"), "synthetic");
  EXPECT_EQ(Cell(f.table, 0, "runs"), "2");
  EXPECT_EQ(Cell(f.table, 0, "samples_per_s"), "105");
  EXPECT_EQ(Cell(f.table, 0, "real_vs_synthetic_percent"), "");
  EXPECT_EQ(Cell(f.table, 1, "data"), "real");
  EXPECT_EQ(Cell(f.table, 1, "dataset"), "imagenet");
  EXPECT_EQ(Cell(f.table, 1, "samples_per_s"), "73.5");
  EXPECT_EQ(Cell(f.table, 1, "real_vs_synthetic_percent"), "-30");
  EXPECT_EQ(Cell(f.table, 1, "elapsed_s"), "3");
  EXPECT_EQ(Cell(f.table, 1, "provenance"), "measured");

  FigureTable none = SyntheticVsRealFigure(Inputs({DoneRun(1, "MAXN", 4, 10)}));
  EXPECT_THAT(none.omitted, HasSubstr("synthetic and real data"));
}

TEST(ReportFiguresTest, AllFiguresInTheReportsOrder) {
  std::vector<std::string> names;
  for (const FigureTable& f : AllFigures(Inputs({}))) names.push_back(f.name);
  EXPECT_THAT(names, ::testing::ElementsAre("pareto", "minibatch_time",
                                            "energy_split", "distributions",
                                            "timeline", "heldout",
                                            "variability",
                                            "synthetic_vs_real",
                                            "trace_syscalls",
                                            "trace_writeback"));
}

}  // namespace
}  // namespace powersweep

namespace powersweep {
namespace {

TraceCsvRow TraceRow(int64_t run, const std::string& kind,
                     const std::string& name, double count) {
  TraceCsvRow t;
  t.run_id = run;
  t.attempt = 1;
  t.kind = kind;
  t.name = name;
  t.count = count;
  return t;
}

TEST(ReportTraceFiguresTest, SyscallsPerRunAndWritebacksByReasonPerCell) {
  // Runs 1 and 2 repeat one cell (MAXN); run 3 is another (MODE_15W).
  ReportInputs in = Inputs({DoneRun(1, "MAXN", 4, 10), DoneRun(2, "MAXN", 4, 10),
                            DoneRun(3, "MODE_15W", 8, 7)});
  in.traces = {TraceRow(1, "syscalls", "futex", 300),
               TraceRow(1, "syscalls", "read", 100),
               TraceRow(2, "syscalls", "futex", 500),
               TraceRow(3, "syscalls", "read", 50),
               TraceRow(1, "writeback", "all", 4),
               TraceRow(1, "writeback", "periodic", 3),
               TraceRow(1, "writeback", "sync", 1)};
  in.traces[4].interval_mean_s = 5;
  in.traces[4].interval_sd_s = 0.5;
  // A failed attempt's rows do not count.
  TraceCsvRow old = TraceRow(3, "syscalls", "futex", 9999);
  old.attempt = 2;
  in.traces.push_back(old);

  // 2 cells x {read, futex}: read first, the larger share of a cell (all
  // of MODE_15W's calls).
  FigureTable calls = TraceSyscallsFigure(in);
  ASSERT_EQ(calls.table.rows.size(), 4u);
  EXPECT_EQ(Cell(calls.table, 0, "syscall"), "read");
  EXPECT_EQ(Cell(calls.table, 0, "calls_per_run"), "50");
  EXPECT_EQ(Cell(calls.table, 1, "syscall"), "futex");
  EXPECT_EQ(Cell(calls.table, 1, "calls_per_run"), "400");  // (300 + 500) / 2
  EXPECT_EQ(Cell(calls.table, 1, "share_percent"), "88.8889");
  EXPECT_EQ(Cell(calls.table, 1, "runs"), "2");
  EXPECT_EQ(Cell(calls.table, 2, "calls_per_run"), "50");
  EXPECT_EQ(Cell(calls.table, 2, "share_percent"), "100");
  EXPECT_EQ(Cell(calls.table, 3, "calls_per_run"), "0");  // none in MODE_15W

  FigureTable wb = TraceWritebackFigure(in);
  ASSERT_EQ(wb.table.rows.size(), 3u);
  EXPECT_EQ(Cell(wb.table, 0, "reason"), "all");
  // Run 2 traced write-backs and had none: (4 + 0) / 2.
  EXPECT_EQ(Cell(wb.table, 0, "writebacks_per_run"), "2");
  EXPECT_EQ(Cell(wb.table, 0, "interval_mean_s"), "5");
  EXPECT_EQ(Cell(wb.table, 0, "interval_sd_s"), "0.5");
  EXPECT_EQ(Cell(wb.table, 1, "reason"), "periodic");
  EXPECT_EQ(Cell(wb.table, 1, "share_percent"), "75");
  EXPECT_TRUE(wb.omitted.empty());

  in.traces.clear();
  EXPECT_THAT(TraceSyscallsFigure(in).omitted,
              HasSubstr("traces: [syscalls, ...]"));
  EXPECT_THAT(TraceWritebackFigure(in).omitted,
              HasSubstr("traces: [writeback, ...]"));
}

}  // namespace
}  // namespace powersweep
