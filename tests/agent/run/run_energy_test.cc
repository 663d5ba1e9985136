// The run executor's energy fields: a baseload run (no process) and a
// workload run, on a platform that reports a constant modeled power.
#include <stdlib.h>

#include <memory>
#include <vector>

#include "agent/platform/fake_platform.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/recording_sink.h"
#include "agent/telemetry/baseload.h"
#include "common/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

constexpr double kPowerMw = 2000;

class PoweredPlatform : public FakePlatform {
 public:
  PoweredPlatform() : FakePlatform({0, 1}) {}
  void Sample(const std::vector<int>& cpus, v1::TelemetrySample* s) override {
    FakePlatform::Sample(cpus, s);
    s->set_power_mw(kPowerMw);
    s->set_power_provenance(v1::PROVENANCE_MODELED);
  }
};

class RunEnergyTest : public testing::Test {
 protected:
  RunEnergyTest() {
    catalog_.datasets = {{"fashion-mnist", "/data/fm"}};
    config_.workload_bin = FAKE_WORKLOAD;
    config_.work_dir = MakeTestDir("run_energy_test");
    unsetenv("FAKE_WORKLOAD_FLAGS");
  }
  ~RunEnergyTest() override { unsetenv("FAKE_WORKLOAD_FLAGS"); }
  RunExecutor Make() {
    return RunExecutor(config_, &catalog_, &platform_, &clock_, [this] {
      return std::make_unique<NativeRuntime>(&clock_);
    });
  }
  RealClock clock_;
  Catalog catalog_;
  PoweredPlatform platform_;
  RunExecutorConfig config_;
  RecordingSink sink_;
};

v1::RunSpec Baseload(double duration_s) {
  v1::RunSpec spec;
  spec.set_run_id(5);
  spec.set_attempt(1);
  spec.mutable_workload()->set_task(v1::TASK_BASELOAD);
  spec.mutable_workload()->set_duration_s(duration_s);
  spec.set_telemetry_hz(50);
  spec.set_timeout_s(30);
  return spec;
}

TEST_F(RunEnergyTest, BaseloadRunMeasuresIdlePowerWithoutAProcess) {
  RunExecutor ex = Make();
  v1::RunFinished f = ex.Execute(Baseload(0.6), &sink_);
  const v1::RunResult& r = f.result();
  ASSERT_TRUE(r.ok()) << r.reason();
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_GE(r.duration_s(), 0.6);
  ASSERT_GE(sink_.Samples().size(), 2u);  // 50 Hz for 0.6 s
  EXPECT_NEAR(r.baseload_power_mw(), kPowerMw, 1e-6);
  EXPECT_GT(r.energy_j(), 0);
  EXPECT_LE(r.energy_j(), kPowerMw / 1000 * r.duration_s() + 1e-9);
  EXPECT_EQ(r.energy_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_EQ(r.incremental_energy_j(), 0);
  EXPECT_GT(r.agent_cpu_fraction(), 0);
  EXPECT_LT(r.agent_cpu_fraction(), 2.0);
  EXPECT_EQ(platform_.restores(), 1);
}

TEST_F(RunEnergyTest, BaseloadWithoutDurationIsRejectedBeforeStarting) {
  RunExecutor ex = Make();
  v1::RunFinished f = ex.Execute(Baseload(0), &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_THAT(f.result().reason(), HasSubstr("workload.duration_s"));
  EXPECT_EQ(platform_.applies(), 0);
}

TEST_F(RunEnergyTest, CancelledBaseloadEndsCancelled) {
  FakeClock clock;
  BaseloadRuntime rt(&clock, 100);
  ASSERT_TRUE(rt.Start(RuntimeSpec(), nullptr).ok());
  rt.Cancel("stop");
  ExitStatus st = rt.Wait();
  EXPECT_TRUE(st.cancelled);
  EXPECT_EQ(st.FailureReason(), "cancelled: stop");
}

TEST_F(RunEnergyTest, BaseloadOnFakeClockFinishesAfterItsDuration) {
  FakeClock clock;
  BaseloadRuntime rt(&clock, 2.5);
  std::vector<v1::WorkloadEvent> events;
  ASSERT_TRUE(rt.Start(RuntimeSpec(), [&](const v1::WorkloadEvent& e) {
                  events.push_back(e);
                }).ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.FailureReason(), "");
  EXPECT_DOUBLE_EQ(st.wall_s, 2.5);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].finished().stop_reason(), "duration");
}

TEST_F(RunEnergyTest, WorkloadRunCarriesEnergyAndPhaseSplit) {
  setenv("FAKE_WORKLOAD_FLAGS", "--minibatches 20 --interval-ms 20", 1);
  RunExecutor ex = Make();
  v1::RunSpec spec;
  spec.set_run_id(6);
  spec.set_attempt(1);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_TRAIN);
  w->set_batch_size(32);
  w->set_minibatches(20);
  spec.set_telemetry_hz(100);
  spec.set_timeout_s(30);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  const v1::RunResult& r = f.result();
  ASSERT_TRUE(r.ok()) << r.reason();
  ASSERT_GE(sink_.Samples().size(), 2u);
  EXPECT_GT(r.energy_j(), 0);
  EXPECT_EQ(r.energy_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_GE(r.energy_stall_j(), 0);
  EXPECT_GE(r.energy_compute_j(), 0);
  EXPECT_LE(r.energy_stall_j() + r.energy_compute_j(), r.energy_j() + 1e-9);
  EXPECT_EQ(r.baseload_power_mw(), 0);  // not a baseload run
  EXPECT_GT(r.agent_cpu_fraction(), 0);
}

}  // namespace
}  // namespace powersweep
