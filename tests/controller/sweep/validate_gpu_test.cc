// Host GPU knobs at submit (controller/sweep/validate_devices.cc):
// gpu_power_limit_w and a locked SM clock (gpu_freq_hz) are checked against
// what registered host devices offer through NVML, and refused on Jetson
// classes. The sweep file infra/scripts/gpu-check.sh plans is read and
// validated as `submit` would.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "controller/sweep/sweep_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/sweep/validate_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_util::Ctx;
using testing_util::Device;
using testing_util::GoodSpec;
using testing_util::Problems;

// A host with an H100-like GPU the agent can set (NVML, as root).
v1::DeviceStatus GpuHost(const std::string& id) {
  v1::DeviceStatus d = Device(id, "host", 16, {v1::RUNTIME_NATIVE});
  v1::DeviceCapabilities* caps = d.mutable_capabilities();
  caps->set_gpu_name("NVIDIA H100 80GB HBM3");
  for (int64_t mhz : {600, 990, 1500, 1980}) {
    caps->add_gpu_freqs_hz(mhz * 1'000'000);
  }
  caps->set_gpu_power_limit_min_w(200);
  caps->set_gpu_power_limit_max_w(700);
  return d;
}

v1::SweepSpec HostSpec() {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  return s;
}

ValidationContext WithGpuHost() {
  ValidationContext ctx;
  ctx.known_devices.push_back(GpuHost("gpu-host-0"));
  return ctx;
}

TEST(ValidateGpuTest, LimitsAndClocksTheHostsGpuOffersPass) {
  v1::SweepSpec s = HostSpec();
  s.mutable_power_modes(0)->set_gpu_power_limit_w(300);
  s.add_power_modes()->set_gpu_freq_hz(990'000'000);
  EXPECT_THAT(Problems(s, WithGpuHost()), IsEmpty());
}

TEST(ValidateGpuTest, ValuesNoRegisteredGpuTakesNameTheRangeAndClocks) {
  v1::SweepSpec s = HostSpec();
  s.mutable_power_modes(0)->set_gpu_power_limit_w(150);
  s.add_power_modes()->set_gpu_freq_hz(1'000'000'000);
  s.add_power_modes()->set_gpu_power_limit_w(-5);
  EXPECT_THAT(
      Problems(s, WithGpuHost()),
      ElementsAre("power_modes[0].gpu_power_limit_w: 150 W is outside the "
                  "range of every registered host GPU (200..700 W)",
                  "power_modes[1].gpu_freq_hz: 1000000000 is not an SM clock "
                  "any registered host GPU supports (nearest: 990000000, "
                  "1500000000; `powersweep devices --modes DEVICE` lists "
                  "them)",
                  "power_modes[2].gpu_power_limit_w: must not be negative (0 "
                  "leaves it as the device has it), got -5"));
}

TEST(ValidateGpuTest, AHostWithoutNvmlSaysWhyItsGpuKnobsAreRefused) {
  ValidationContext ctx;
  v1::DeviceStatus cpu_only = Device("cpu-host-0", "host", 8,
                                     {v1::RUNTIME_NATIVE});
  cpu_only.mutable_capabilities()->set_gpu_note(
      "no NVML: cannot open libnvidia-ml.so.1");
  ctx.known_devices.push_back(cpu_only);
  v1::SweepSpec s = HostSpec();
  s.mutable_power_modes(0)->set_gpu_power_limit_w(300);
  EXPECT_THAT(Problems(s, ctx),
              ElementsAre("power_modes[0].gpu_power_limit_w: no registered "
                          "host device can set its GPU's power limit "
                          "(cpu-host-0: no NVML: cannot open "
                          "libnvidia-ml.so.1)"));
}

TEST(ValidateGpuTest, WithNoHostRegisteredTheGpuKnobsAreAWarning) {
  ValidationContext ctx;
  v1::SweepSpec s = HostSpec();
  s.mutable_power_modes(0)->set_gpu_freq_hz(990'000'000);
  std::vector<std::string> warnings;
  EXPECT_THAT(Problems(s, ctx, &warnings), IsEmpty());
  EXPECT_THAT(absl::StrJoin(warnings, "\n"),
              HasSubstr("power_modes[0].gpu_freq_hz"));
}

TEST(ValidateGpuTest, AJetsonClassHasNoGpuPowerLimit) {
  v1::SweepSpec s = GoodSpec();  // orin-agx
  s.mutable_power_modes(0)->set_gpu_power_limit_w(30);
  EXPECT_THAT(Problems(s, Ctx()),
              ElementsAre(HasSubstr("power_modes[0].gpu_power_limit_w: not "
                                    "settable on class orin-agx")));
}

TEST(ValidateGpuTest, ModesDifferingOnlyInTheLimitAreNoDuplicates) {
  v1::SweepSpec s = HostSpec();
  s.mutable_power_modes(0)->set_gpu_power_limit_w(300);
  s.add_power_modes()->set_gpu_power_limit_w(450);
  s.add_power_modes()->set_gpu_power_limit_w(450);
  EXPECT_THAT(Problems(s, WithGpuHost()),
              ElementsAre("power_modes[2]: duplicate of power_modes[1]"));
}

TEST(ValidateGpuTest, WarmupMinibatchesMustBeMinusOneZeroOrACount) {
  v1::SweepSpec s = HostSpec();
  s.set_warmup_minibatches(-1);
  EXPECT_THAT(Problems(s, WithGpuHost()), IsEmpty());
  s.set_warmup_minibatches(-3);
  EXPECT_THAT(Problems(s, WithGpuHost()),
              ElementsAre(HasSubstr("warmup_minibatches: must be -1 (none), "
                                    "0 (the default")));
}

TEST(ValidateGpuTest, TheGpuCheckScriptsPlanLoadsAndValidates) {
  const std::string dir = ::testing::TempDir() + "/gpu_check_plan";
  std::filesystem::remove_all(dir);
  const std::string cmd = std::string("bash ") + POWERSWEEP_SOURCE_DIR +
                          "/infra/scripts/gpu-check.sh --plan-only --out " +
                          dir +
                          " --sm-clocks 1980,1500,990,600 --power-limits "
                          "200,700 --minibatches 50 >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  absl::StatusOr<v1::SweepSpec> spec =
      LoadSweepFile(dir + "/gpu-sweep.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  // {} and 2 limits and 3 clocks (lowest, middle, highest).
  ASSERT_EQ(spec->power_modes_size(), 6);
  EXPECT_EQ(spec->power_modes(1).gpu_power_limit_w(), 200);
  EXPECT_EQ(spec->power_modes(2).gpu_power_limit_w(), 700);
  EXPECT_EQ(spec->power_modes(3).gpu_freq_hz(), 600'000'000);
  EXPECT_EQ(spec->power_modes(4).gpu_freq_hz(), 990'000'000);
  EXPECT_EQ(spec->power_modes(5).gpu_freq_hz(), 1980'000'000);
  EXPECT_EQ(spec->minibatches(), 50);
  EXPECT_THAT(Problems(WithDefaults(*spec), WithGpuHost()), IsEmpty());
  // Nonsense is refused before anything is written.
  const std::string bad = std::string("bash ") + POWERSWEEP_SOURCE_DIR +
                          "/infra/scripts/gpu-check.sh --plan-only --out " +
                          dir + " --sm-clocks 990 --power-limits 2x0 " +
                          "2>/dev/null";
  EXPECT_NE(std::system(bad.c_str()), 0);
}

}  // namespace
}  // namespace powersweep
