// HostPlatform with an NVIDIA GPU through the fake libnvidia-ml
// (fake_nvml/fake_nvml.cc): capabilities, power modes, samples, the energy
// counter, a lost GPU, and restore after a crash.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_join.h"
#include "agent/platform/host/host_platform.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/host/fake_nvml/fake_nvml_state.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fake = testing_nvml;

class HostGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/host_gpu_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    state_ = dir_ + "/state";
    fake::Write(state_, fake::H100());
  }
  HostPlatformOptions Options() {
    HostPlatformOptions o;
    o.device_id = "gpu-host-1";
    o.allowed_cpus = {0, 1};
    o.proc_root = FIXTURES_DIR "/proc";
    o.cgroup_root = dir_ + "/no_cgroup";
    o.use_rapl = false;  // the CPU part is the model: deterministic
    o.nvml_library = FAKE_NVML_LIBRARY;
    o.gpu_restore_path = dir_ + "/gpu-restore.txt";
    return o;
  }
  std::unique_ptr<HostPlatform> Make() {
    auto p = HostPlatform::Create(Options());
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : nullptr;
  }
  static v1::TelemetrySample SampleAt(HostPlatform& p, double t_s) {
    v1::TelemetrySample s;
    s.set_t_s(t_s);
    for (int i = 0; i < 2; ++i) s.add_cores()->set_util(0.5);
    p.Sample({0, 1}, &s);
    return s;
  }
  std::string Key(const std::string& k) { return fake::Read(state_)[k]; }

  std::string dir_;
  std::string state_;
};

TEST_F(HostGpuTest, CapabilitiesOfferTheGpusClocksAndPowerLimits) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  v1::DeviceCapabilities caps = p->Capabilities();
  EXPECT_EQ(caps.gpu_name(), "NVIDIA H100 80GB HBM3");
  EXPECT_THAT(caps.gpu_freqs_hz(), ElementsAre(600'000'000, 990'000'000,
                                               1500'000'000, 1980'000'000));
  EXPECT_EQ(caps.gpu_power_limit_min_w(), 200);
  EXPECT_EQ(caps.gpu_power_limit_max_w(), 700);
  EXPECT_EQ(caps.gpu_note(), "");
}

TEST_F(HostGpuTest, ACudaRunsProvenanceNamesTheGpuAndDriver) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  v1::GpuProvenance gpu;
  p->FillGpuProvenance(&gpu);
  EXPECT_EQ(gpu.name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.compute_capability(), "9.0");
  EXPECT_EQ(gpu.driver_version(), "580.65.06");
}

TEST_F(HostGpuTest, WithoutNvmlTheHostSaysWhyAndRefusesGpuKnobs) {
  HostPlatformOptions o = Options();
  o.nvml_library = dir_ + "/libnvidia-ml.so.1";  // not there
  auto p = HostPlatform::Create(o);
  ASSERT_TRUE(p.ok());
  v1::DeviceCapabilities caps = (*p)->Capabilities();
  EXPECT_THAT(caps.gpu_note(), HasSubstr("no NVML: cannot open"));
  EXPECT_EQ(caps.gpu_freqs_hz_size(), 0);
  EXPECT_EQ(caps.gpu_power_limit_max_w(), 0);
  v1::PowerMode mode;
  mode.set_gpu_power_limit_w(300);
  auto applied = (*p)->Apply(mode);
  ASSERT_FALSE(applied.ok());
  EXPECT_THAT(applied.status().message(),
              HasSubstr("gpu_power_limit_w: this host has no GPU knobs: no "
                        "NVML"));
  // The probe says it too.
  bool described = false;
  for (const KnobReport& k : (*p)->DescribeKnobs()) {
    if (k.knob != "gpu_freq_hz") continue;
    described = true;
    EXPECT_FALSE(k.settable);
    EXPECT_THAT(k.note, HasSubstr("no NVML"));
  }
  EXPECT_TRUE(described);
}

TEST_F(HostGpuTest, ApplySetsAndReadsBackTheGpuKnobsAndRestoreUndoesThem) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  v1::PowerMode mode;
  mode.set_cpu_cores(1);
  mode.set_gpu_power_limit_w(300);
  mode.set_gpu_freq_hz(1500'000'000);
  auto applied = p->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().gpu_power_limit_w(), 300);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 1500'000'000);
  EXPECT_EQ(Key("limit_mw"), "300000");
  EXPECT_EQ(Key("locked_mhz"), "1500");
  EXPECT_THAT(absl::StrJoin(applied->notes(), " | "),
              HasSubstr("power: GPU from NVML (measured) + CPU modeled"));
  p->Restore();
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
}

TEST_F(HostGpuTest, ARefusedGpuValueChangesNothingOnTheHost) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  v1::PowerMode mode;
  mode.set_cpu_cores(1);
  mode.set_gpu_power_limit_w(800);
  auto applied = p->Apply(mode);
  ASSERT_FALSE(applied.ok());
  EXPECT_THAT(applied.status().message(),
              HasSubstr("gpu_power_limit_w: 800 W is outside"));
  EXPECT_EQ(p->RunCpus(), (std::vector<int>{0, 1}));
  EXPECT_EQ(Key("limit_mw"), "700000");
}

TEST_F(HostGpuTest, SamplesCarryTheGpuRailMeasuredAndTheTotalAddsTheCpu) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  v1::TelemetrySample s = SampleAt(*p, 0.1);
  ASSERT_EQ(s.rails_size(), 2);
  EXPECT_EQ(s.rails(0).name(), "cpu-modeled");
  EXPECT_EQ(s.rails(0).provenance(), v1::PROVENANCE_MODELED);
  EXPECT_EQ(s.rails(1).name(), "gpu-nvml");
  EXPECT_EQ(s.rails(1).provenance(), v1::PROVENANCE_MEASURED);
  EXPECT_DOUBLE_EQ(s.rails(1).power_mw(), 250000);
  EXPECT_DOUBLE_EQ(s.power_mw(), s.rails(0).power_mw() + 250000);
  // The CPU part is modeled, so the total is labelled modeled.
  EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_EQ(s.gpu_freq_hz(), 1980'000'000);
  EXPECT_DOUBLE_EQ(s.gpu_util(), 0.57);
  EXPECT_EQ(s.mem_freq_hz(), 2619'000'000);
  EXPECT_EQ(s.gpu_mem_used_bytes(), 1073741824);
  ASSERT_EQ(s.temperatures_size(), 1);
  EXPECT_EQ(s.temperatures(0).name(), "GPU");
  EXPECT_DOUBLE_EQ(s.temperatures(0).celsius(), 41);
}

TEST_F(HostGpuTest, TheEnergyCounterIsReadAtRunStartAndEndOnly) {
  fake::Set(state_, "energy_t0", "0");
  auto p = Make();
  ASSERT_NE(p, nullptr);
  fake::Set(state_, "energy_calls", "0");
  p->StartRunEnergyCounter();
  for (int i = 1; i <= 20; ++i) SampleAt(*p, i * 0.01);
  usleep(200'000);
  const double joules = p->StopRunEnergyCounter();
  // 250 W for at least 0.2 s by the fake's wall clock.
  EXPECT_GE(joules, 250 * 0.2 * 0.95);
  EXPECT_LT(joules, 250 * 30.0);
  EXPECT_EQ(Key("energy_calls"), "2");
}

TEST_F(HostGpuTest, AGpuLostMidRunDropsOutOfTheSamplesAndTheRunGoesOn) {
  auto p = Make();
  ASSERT_NE(p, nullptr);
  p->StartRunEnergyCounter();
  ASSERT_EQ(SampleAt(*p, 0.1).rails_size(), 2);
  fake::Set(state_, "lost", "1");
  v1::TelemetrySample s = SampleAt(*p, 0.2);
  ASSERT_EQ(s.rails_size(), 1);
  EXPECT_EQ(s.rails(0).name(), "cpu-modeled");
  EXPECT_GT(s.power_mw(), 0);
  EXPECT_EQ(s.gpu_freq_hz(), 0);
  EXPECT_EQ(p->StopRunEnergyCounter(), 0);
  p->Restore();  // nothing to undo, nothing crashes
}

TEST_F(HostGpuTest, TheNextAgentRestoresWhatADeadOneLeftSet) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto p = HostPlatform::Create(Options());
    if (!p.ok()) _exit(2);
    v1::PowerMode mode;
    mode.set_gpu_power_limit_w(250);
    mode.set_gpu_freq_hz(600'000'000);
    if (!(*p)->Apply(mode).ok()) _exit(3);
    _exit(0);  // dies with the mode applied: no Restore, no destructor
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(Key("limit_mw"), "250000");
  EXPECT_EQ(Key("locked_mhz"), "600");
  ASSERT_TRUE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
  auto p = Make();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
  // The limit it now starts from is the GPU's own, not the dead agent's.
  EXPECT_EQ(p->Capabilities().gpu_power_limit_max_w(), 700);
}

}  // namespace
}  // namespace powersweep
