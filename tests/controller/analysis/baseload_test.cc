#include "controller/analysis/baseload.h"

#include <vector>

#include "controller/analysis/run_summary.h"
#include "gtest/gtest.h"
#include "storage/sqlite_store.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

v1::PowerMode Mode(int64_t khz) {
  v1::PowerMode m;
  m.set_cpu_freq_khz(khz);
  return m;
}

BaseloadRun Base(int64_t id, const std::string& dev, int64_t khz,
                 int64_t finished_ms, double mw) {
  return {id, dev, Mode(khz), finished_ms, mw};
}

v1::RunStatus RunOn(int64_t id, const std::string& dev, int64_t khz,
                  int64_t started_ms) {
  v1::RunStatus r;
  r.mutable_spec()->set_run_id(id);
  *r.mutable_spec()->mutable_power_mode() = Mode(khz);
  r.set_device_id(dev);
  r.set_started_unix_ms(started_ms);
  return r;
}

TEST(BaseloadTest, PicksLatestBeforeTheRunOfTheSameDeviceAndMode) {
  std::vector<BaseloadRun> b = {
      Base(1, "orin-0", 1000, 100, 5000),  // older
      Base(2, "orin-0", 1000, 200, 5100),  // latest before the run: this one
      Base(3, "orin-0", 1000, 900, 5200),  // after the run started
      Base(4, "orin-1", 1000, 250, 9000),  // other device
      Base(5, "orin-0", 2000, 250, 7000),  // other mode
  };
  auto got = PickBaseload(RunOn(10, "orin-0", 1000, 500), b);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->run_id, 2);
  // No baseload before the run: none (README: a run gets a baseload only
  // from a baseload run that finished before it), though later ones exist.
  EXPECT_FALSE(PickBaseload(RunOn(11, "orin-0", 1000, 50), b).has_value());
  // A run that never started has none either.
  EXPECT_FALSE(PickBaseload(RunOn(14, "orin-0", 1000, 0), b).has_value());
  EXPECT_FALSE(PickBaseload(RunOn(12, "nano-0", 1000, 500), b).has_value());
  EXPECT_FALSE(PickBaseload(RunOn(13, "orin-0", 3000, 500), b).has_value());
}

TEST(BaseloadTest, AContainerRunPrefersTheIdleContainerBaseload) {
  BaseloadRun native = Base(1, "orin-0", 1000, 300, 5000);
  BaseloadRun container = Base(2, "orin-0", 1000, 200, 5400);
  container.runtime = v1::RUNTIME_CONTAINER;
  std::vector<BaseloadRun> b = {native, container};
  v1::RunStatus run = RunOn(10, "orin-0", 1000, 500);
  run.mutable_spec()->set_runtime(v1::RUNTIME_CONTAINER);
  auto got = PickBaseload(run, b);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->run_id, 2);
  run.mutable_spec()->set_runtime(v1::RUNTIME_NATIVE);
  EXPECT_EQ(PickBaseload(run, b)->run_id, 1);
  // Only a native baseload: a container run falls back to it.
  run.mutable_spec()->set_runtime(v1::RUNTIME_CONTAINER);
  EXPECT_EQ(PickBaseload(run, {native})->run_id, 1);
}

TEST(BaseloadTest, IncrementalEnergySubtractsBaseloadOverTheSpan) {
  v1::RunResult r;
  r.set_energy_j(100);
  r.set_energy_span_s(30);
  r.set_duration_s(31);
  ApplyBaseload(Base(7, "d", 0, 1, 2500), &r);
  EXPECT_DOUBLE_EQ(r.baseload_power_mw(), 2500);
  EXPECT_EQ(r.baseload_run_id(), 7);
  EXPECT_DOUBLE_EQ(r.incremental_energy_j(), 100 - 2.5 * 30);
  v1::RunResult none;  // no energy: nothing to subtract from
  ApplyBaseload(Base(7, "d", 0, 1, 2500), &none);
  EXPECT_EQ(none.ByteSizeLong(), 0u);
}

// Through a real store: a baseload run and a workload run on one device.
TEST(BaseloadTest, StoredRunsGetBaseloadAndIncrementalEnergyInTheirSummary) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  absl::Time t = absl::FromUnixSeconds(1800000000);
  v1::RunSpec base;
  base.set_device_class("host");
  base.mutable_workload()->set_task(v1::TASK_BASELOAD);
  base.mutable_workload()->set_duration_s(10);
  base.set_runtime(v1::RUNTIME_NATIVE);
  v1::RunSpec work = MakeRuns(1)[0];
  *work.mutable_power_mode() = base.power_mode();
  auto sweep = store->CreateSweep(MakeSpec("s"), {base, work}, t);
  ASSERT_TRUE(sweep.ok());
  auto runs = store->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok());
  const int64_t base_id = (*runs)[0].spec().run_id();
  const int64_t work_id = (*runs)[1].spec().run_id();
  auto finish = [&](int64_t id, const v1::RunResult& r) {
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", t).ok());
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", t).ok());
    t += absl::Seconds(20);
    ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", t).ok());
  };
  v1::RunResult br;
  br.set_run_id(base_id);
  br.set_ok(true);
  br.set_duration_s(10.2);
  br.set_energy_j(30);
  br.set_energy_span_s(10);
  br.set_baseload_power_mw(3000);
  finish(base_id, br);
  v1::RunResult wr;
  wr.set_run_id(work_id);
  wr.set_ok(true);
  wr.set_duration_s(20.5);
  wr.set_energy_j(100);
  wr.set_energy_span_s(20);
  wr.set_energy_stall_j(10);
  wr.set_energy_compute_j(80);
  wr.set_agent_cpu_fraction(0.01);
  {
    // What the controller does when the run finishes (ingest.cc).
    auto baseloads = LoadBaseloads(store.get(), "host-0");
    ASSERT_TRUE(baseloads.ok()) << baseloads.status();
    ASSERT_EQ(baseloads->size(), 1u);
    v1::RunStatus started = (*runs)[1];
    started.set_device_id("host-0");
    started.set_started_unix_ms(absl::ToUnixMillis(t));
    auto pick = PickBaseload(started, *baseloads);
    ASSERT_TRUE(pick.has_value());
    ApplyBaseload(*pick, &wr);
  }
  finish(work_id, wr);

  auto ws = SummarizeStoredRun(store.get(), work_id);
  ASSERT_TRUE(ws.ok()) << ws.status();
  EXPECT_DOUBLE_EQ(ws->baseload_power_mw(), 3000);
  EXPECT_EQ(ws->baseload_run_id(), base_id);
  EXPECT_DOUBLE_EQ(ws->incremental_energy_j(), 100 - 3.0 * 20);
  EXPECT_DOUBLE_EQ(ws->energy_stall_j(), 10);
  EXPECT_DOUBLE_EQ(ws->energy_compute_j(), 80);
  EXPECT_DOUBLE_EQ(ws->agent_cpu_fraction(), 0.01);
  auto bs = SummarizeStoredRun(store.get(), base_id);
  ASSERT_TRUE(bs.ok());
  EXPECT_DOUBLE_EQ(bs->baseload_power_mw(), 3000);
  EXPECT_EQ(bs->incremental_energy_j(), 0);
}

// A workload run stored without a baseload keeps none in every view, even
// once a baseload of its device and mode is measured after it: views read
// what was stored, they never pick a baseload themselves.
TEST(BaseloadTest, ABaseloadMeasuredLaterIsNotAppliedBySummaries) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  absl::Time t = absl::FromUnixSeconds(1800000000);
  v1::RunSpec work = MakeRuns(1)[0];
  v1::RunSpec base = work;
  base.mutable_workload()->set_task(v1::TASK_BASELOAD);
  auto sweep = store->CreateSweep(MakeSpec("s"), {work, base}, t);
  ASSERT_TRUE(sweep.ok());
  auto runs = store->ListRuns(*sweep);
  ASSERT_TRUE(runs.ok());
  for (int i = 0; i < 2; ++i) {
    const int64_t id = (*runs)[i].spec().run_id();
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", t).ok());
    ASSERT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", t).ok());
    t += absl::Seconds(20);
    v1::RunResult r;
    r.set_run_id(id);
    r.set_ok(true);
    r.set_energy_j(100);
    r.set_energy_span_s(20);
    r.set_energy_provenance(v1::PROVENANCE_MEASURED);
    if (i == 1) r.set_baseload_power_mw(3000);
    ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", t).ok());
  }
  auto s = SummarizeStoredRun(store.get(), (*runs)[0].spec().run_id());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->baseload_run_id(), 0);
  EXPECT_EQ(s->incremental_energy_j(), 0);
}

}  // namespace
}  // namespace powersweep
