#include "agent/runtime/twin/twin_runtime.h"

#include <vector>

#include "agent/run/catalog.h"
#include "agent/run/run_executor.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::unique_ptr<TwinPlatform> Twin(uint64_t seed = 5, int64_t instance = 1) {
  TwinPlatformOptions o;
  o.device_class = "orin-agx";
  o.instance = instance;
  o.seed = seed;
  return std::move(*TwinPlatform::Create(o));
}

RuntimeSpec Spec(int64_t minibatches, double timeout_s = 600) {
  v1::RunSpec run;
  run.set_run_id(1);
  auto* w = run.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_TRAIN);
  w->set_batch_size(64);
  w->set_loader_workers(2);
  w->set_minibatches(minibatches);
  w->set_seed(3);
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", "twin:fashion-mnist"}};
  RuntimeSpec spec;
  spec.argv = *BuildWorkloadArgv("twin-model", catalog, run, 12);
  spec.timeout_s = timeout_s;
  return spec;
}

struct Recorded {
  std::vector<v1::WorkloadEvent> events;
  std::vector<v1::TelemetrySample> samples;
  int minibatches() const {
    int n = 0;
    for (const auto& e : events) n += e.has_minibatch();
    return n;
  }
};

ExitStatus RunTwin(TwinRuntime* rt, const RuntimeSpec& spec, Recorded* out,
                   double hz = 10) {
  rt->SetTelemetry(hz, [out](const v1::TelemetrySample& s) {
    out->samples.push_back(s);
  });
  EXPECT_TRUE(rt->Start(spec, [out](const v1::WorkloadEvent& e) {
                  out->events.push_back(e);
                }).ok());
  return rt->Wait();
}

TEST(TwinRuntimeTest, DeliversStartedRecordsAndFinishedWithoutAProcess) {
  FakeClock clock;
  auto twin = Twin();
  TwinRuntime rt(twin.get(), &clock);
  Recorded rec;
  ExitStatus exit = RunTwin(&rt, Spec(300), &rec);
  EXPECT_EQ(exit.FailureReason(), "");
  EXPECT_EQ(rt.Pid(), 0);
  ASSERT_GE(rec.events.size(), 302u);
  ASSERT_TRUE(rec.events.front().has_started());
  EXPECT_EQ(rec.events.front().started().framework(), "twin-model");
  EXPECT_EQ(rec.events.front().started().framework_version(), kTwinModelVersion);
  EXPECT_EQ(rec.minibatches(), 300);
  ASSERT_TRUE(rec.events.back().has_finished());
  EXPECT_EQ(rec.events.back().finished().minibatches(), 300);
  for (const auto& s : rec.samples) {
    EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_SIMULATED);
  }
}

TEST(TwinRuntimeTest, EnergyEqualsTheIntegralOfItsPowerTrace) {
  FakeClock clock;
  auto twin = Twin();
  TwinRuntime rt(twin.get(), &clock);
  Recorded rec;
  RunTwin(&rt, Spec(2000), &rec, 50);
  ASSERT_GT(rec.samples.size(), 10u);
  double joules = 0;
  for (size_t i = 1; i < rec.samples.size(); ++i) {
    const auto& a = rec.samples[i - 1];
    const auto& b = rec.samples[i];
    joules += (b.t_s() - a.t_s()) * (a.power_mw() + b.power_mw()) / 2e3;
  }
  EXPECT_NEAR(rt.EnergyJ(), joules, 1e-9 * joules);
  EXPECT_DOUBLE_EQ(rt.SimulatedDurationS(), rec.samples.back().t_s());
  // Average power is in the range of the board (a few W to tens of W).
  const double watts = joules / rt.SimulatedDurationS();
  EXPECT_GT(watts, 4);
  EXPECT_LT(watts, 60);
}

TEST(TwinRuntimeTest, PacesEventsOnTheClockByTheTimeScale) {
  for (double scale : {0.0, 0.01, 0.5}) {
    FakeClock clock;
    auto twin = Twin();
    TwinRuntimeOptions opts;
    opts.time_scale = scale;
    TwinRuntime rt(twin.get(), &clock, opts);
    Recorded rec;
    const int64_t t0 = clock.MonotonicNanos();
    ExitStatus exit = RunTwin(&rt, Spec(500), &rec);
    const double wall = (clock.MonotonicNanos() - t0) * 1e-9;
    EXPECT_NEAR(wall, rt.SimulatedDurationS() * scale, 1e-6) << scale;
    EXPECT_NEAR(exit.wall_s, wall, 1e-6);
    // Records keep simulated seconds whatever the scale.
    EXPECT_GT(rt.SimulatedDurationS(), 1.0);
  }
}

TEST(TwinRuntimeTest, CancelStopsTheReplay) {
  FakeClock clock;
  auto twin = Twin();
  TwinRuntime rt(twin.get(), &clock);
  Recorded rec;
  rt.SetTelemetry(10, nullptr);
  ASSERT_TRUE(rt.Start(Spec(1000), [&](const v1::WorkloadEvent& e) {
                  rec.events.push_back(e);
                  if (e.has_minibatch() && e.minibatch().index() == 9) {
                    rt.Cancel("user asked");
                  }
                }).ok());
  ExitStatus exit = rt.Wait();
  EXPECT_TRUE(exit.cancelled);
  EXPECT_EQ(exit.FailureReason(), "cancelled: user asked");
  EXPECT_EQ(rec.minibatches(), 10);
  EXPECT_FALSE(rec.events.back().has_finished());
}

TEST(TwinRuntimeTest, TimeoutIsEnforcedInSimulatedTime) {
  FakeClock clock;
  auto twin = Twin();
  TwinRuntime rt(twin.get(), &clock);
  Recorded rec;
  ExitStatus exit = RunTwin(&rt, Spec(10000000, 2.5), &rec);
  EXPECT_TRUE(exit.timed_out);
  // The reason says the time was simulated (the fake clock did not move).
  EXPECT_EQ(exit.FailureReason(),
            "timed out after 2.5 s of simulated time (0.0 s of wall time)");
  EXPECT_DOUBLE_EQ(rt.SimulatedDurationS(), 2.5);
  EXPECT_FALSE(rec.events.back().has_finished());
}

TEST(TwinRuntimeTest, RepetitionsDifferAndAFreshTwinReplaysTheSameNumbers) {
  FakeClock clock;
  auto first = Twin(5, 1);
  auto again = Twin(5, 1);
  Recorded a1, a2, b1;
  TwinRuntime r1(first.get(), &clock), r2(first.get(), &clock),
      r3(again.get(), &clock);
  RunTwin(&r1, Spec(50), &a1);
  RunTwin(&r2, Spec(50), &a2);  // second run on the same twin
  RunTwin(&r3, Spec(50), &b1);  // first run on an identical twin
  ASSERT_EQ(a1.events.size(), b1.events.size());
  for (size_t i = 0; i < a1.events.size(); ++i) {
    EXPECT_EQ(a1.events[i].SerializeAsString(),
              b1.events[i].SerializeAsString());
  }
  EXPECT_NE(a1.events[5].minibatch().compute_s(),
            a2.events[5].minibatch().compute_s());
  // The second run found the dataset in the page cache: shorter start-up.
  EXPECT_LT(r2.SimulatedDurationS(), r1.SimulatedDurationS());
}

TEST(TwinRuntimeTest, StartFailsOnAnArgvItCannotSimulate) {
  FakeClock clock;
  auto twin = Twin();
  TwinRuntime rt(twin.get(), &clock);
  RuntimeSpec spec = Spec(10);
  spec.argv[3] = "resnet9";  // --model value
  EXPECT_FALSE(rt.Start(spec, [](const v1::WorkloadEvent&) {}).ok());
  spec = Spec(10);
  spec.argv.resize(4);
  EXPECT_FALSE(rt.Start(spec, [](const v1::WorkloadEvent&) {}).ok());
}

}  // namespace
}  // namespace powersweep
