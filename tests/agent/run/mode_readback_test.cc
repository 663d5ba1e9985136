// The requested power mode must read back: a knob the platform reports set
// to another value than requested, without a note explaining a clamp,
// fails the run before anything starts, names the knob and both values,
// restores the platform and tells the agent (which marks itself unhealthy).
#include "agent/run/mode_readback.h"

#include <string>
#include <vector>

#include "agent/run/run_executor.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/recording_sink.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "agent/platform/fake_platform.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

v1::AppliedPowerMode Applied(int cores_wanted, int cores_got,
                             int64_t khz_wanted, int64_t khz_got) {
  v1::AppliedPowerMode a;
  a.mutable_requested()->set_cpu_cores(cores_wanted);
  a.mutable_requested()->set_cpu_freq_khz(khz_wanted);
  a.mutable_actual()->set_cpu_cores(cores_got);
  a.mutable_actual()->set_cpu_freq_khz(khz_got);
  return a;
}

TEST(ModeReadBackTest, KnobsThatReadBackAsRequestedPass) {
  EXPECT_EQ(ModeReadBackProblem(Applied(4, 4, 1497600, 1497600)), "");
}

TEST(ModeReadBackTest, AKnobNotRequestedOrNotReportedIsNotChecked) {
  // 0 requested: left as the device has it.
  EXPECT_EQ(ModeReadBackProblem(Applied(0, 8, 0, 2201600)), "");
  // 0 actual: the platform does not say it set the knob.
  EXPECT_EQ(ModeReadBackProblem(Applied(4, 4, 1497600, 0)), "");
}

TEST(ModeReadBackTest, ADifferentValueWithoutANoteNamesTheKnobAndBothValues) {
  EXPECT_EQ(ModeReadBackProblem(Applied(4, 3, 1497600, 1190400)),
            "cpu_cores: requested 4, read back 3 with no clamp note; "
            "cpu_freq_khz: requested 1497600, read back 1190400 with no "
            "clamp note");
  v1::AppliedPowerMode gpu;
  gpu.mutable_requested()->set_gpu_freq_hz(1300500000);
  gpu.mutable_actual()->set_gpu_freq_hz(930750000);
  EXPECT_THAT(ModeReadBackProblem(gpu),
              HasSubstr("gpu_freq_hz: requested 1300500000, read back "
                        "930750000"));
}

TEST(ModeReadBackTest, AClampThePlatformExplainsPasses) {
  v1::AppliedPowerMode a = Applied(4, 4, 1497600, 1190400);
  a.add_notes(
      "cpu_freq_khz: requested 1497600 kHz, cluster 0 runs 1190400 kHz "
      "(clamped by the kernel: nvpmodel cap or thermal limit)");
  EXPECT_EQ(ModeReadBackProblem(a), "");
}

// Reports one core fewer than requested, without a note.
class ShortOfACorePlatform : public FakePlatform {
 public:
  ShortOfACorePlatform() : FakePlatform({0, 1, 2}) {}
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override {
    absl::StatusOr<v1::AppliedPowerMode> a = FakePlatform::Apply(mode);
    if (a.ok()) a->mutable_actual()->set_cpu_cores(mode.cpu_cores() - 1);
    return a;
  }
};

TEST(ModeReadBackTest, AMismatchFailsTheRunRestoresAndTellsTheAgent) {
  RealClock clock;
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", "/data/fm"}};
  RunExecutorConfig config;
  config.workload_bin = FAKE_WORKLOAD;
  config.work_dir = MakeTestDir("mode_readback_test");
  std::vector<std::string> told;
  config.on_mode_mismatch = [&told](const std::string& r) {
    told.push_back(r);
  };
  ShortOfACorePlatform platform;
  RunExecutor ex(config, &catalog, &platform, &clock,
                 [&clock] { return std::make_unique<NativeRuntime>(&clock); });
  v1::RunSpec spec;
  spec.set_run_id(5);
  spec.set_attempt(1);
  spec.mutable_workload()->set_model("lenet5");
  spec.mutable_workload()->set_dataset("fashion-mnist");
  spec.mutable_workload()->set_task(v1::TASK_TRAIN);
  spec.mutable_workload()->set_batch_size(32);
  spec.mutable_workload()->set_minibatches(3);
  spec.mutable_power_mode()->set_cpu_cores(2);
  spec.set_timeout_s(60);
  RecordingSink sink;
  v1::RunFinished f = ex.Execute(spec, &sink);
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.result().reason(),
            "the power mode did not read back: cpu_cores: requested 2, read "
            "back 1 with no clamp note");
  EXPECT_EQ(told, std::vector<std::string>{f.result().reason()});
  EXPECT_TRUE(sink.started().empty());
  EXPECT_EQ(sink.finished().size(), 1u);
  EXPECT_EQ(platform.applies(), 1);
  EXPECT_EQ(platform.restores(), 1);
}

}  // namespace
}  // namespace powersweep
