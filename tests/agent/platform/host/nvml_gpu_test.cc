// NvmlGpu and HostGpuKnobs against the fake libnvidia-ml the tests build
// (fake_nvml/fake_nvml.cc): what a GPU host's agent reads, sets, refuses and
// restores.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "agent/platform/host/gpu_knobs.h"
#include "agent/platform/host/nvml_gpu.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/host/fake_nvml/fake_nvml_state.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fake = testing_nvml;

class NvmlGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/nvml_gpu_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    state_ = dir_ + "/state";
    fake::Write(state_, fake::H100());
  }
  std::unique_ptr<NvmlGpu> Open() {
    auto gpu = NvmlGpu::Open(FAKE_NVML_LIBRARY, 0);
    EXPECT_TRUE(gpu.ok()) << gpu.status();
    return gpu.ok() ? *std::move(gpu) : nullptr;
  }
  std::string Key(const std::string& k) { return fake::Read(state_)[k]; }

  std::string dir_;
  std::string state_;
};

TEST_F(NvmlGpuTest, AMissingLibraryIsNotFoundNamingIt) {
  auto gpu = NvmlGpu::Open("/nonexistent/libnvidia-ml.so.1", 0);
  ASSERT_FALSE(gpu.ok());
  EXPECT_TRUE(absl::IsNotFound(gpu.status()));
  EXPECT_THAT(gpu.status().message(),
              HasSubstr("cannot open /nonexistent/libnvidia-ml.so.1"));
}

TEST_F(NvmlGpuTest, ALibraryWithoutNvmlIsRefusedNamingTheFunction) {
  auto gpu = NvmlGpu::Open("libc.so.6", 0);
  ASSERT_FALSE(gpu.ok());
  EXPECT_THAT(gpu.status().message(), HasSubstr("has no nvmlInit_v2"));
}

TEST_F(NvmlGpuTest, AFailedInitAndAMissingGpuAreErrors) {
  fake::Set(state_, "fail_nvmlInit_v2", "9");
  auto gpu = NvmlGpu::Open(FAKE_NVML_LIBRARY, 0);
  ASSERT_FALSE(gpu.ok());
  EXPECT_THAT(gpu.status().message(),
              HasSubstr("nvmlInit_v2 failed: Driver Not Loaded"));
  fake::Set(state_, "fail_nvmlInit_v2", "0");
  gpu = NvmlGpu::Open(FAKE_NVML_LIBRARY, 1);
  ASSERT_FALSE(gpu.ok());
  EXPECT_THAT(gpu.status().message(), HasSubstr("NVML has 1 GPU, no GPU 1"));
}

TEST_F(NvmlGpuTest, ReadsIdentitySupportedClocksAndLimitRange) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  const NvmlGpuInfo& info = gpu->info();
  EXPECT_EQ(info.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.uuid, "GPU-5f0c-fake");
  EXPECT_EQ(info.driver, "580.65.06");
  EXPECT_EQ(info.compute_capability, "9.0");
  EXPECT_THAT(info.sm_clocks_mhz, ElementsAre(600, 990, 1500, 1980));
  EXPECT_EQ(info.limit_min_mw, 200000);
  EXPECT_EQ(info.limit_max_mw, 700000);
  EXPECT_EQ(info.limit_at_open_mw, 700000);
}

TEST_F(NvmlGpuTest, ASampleHasPowerClocksUtilisationTemperatureAndMemory) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  NvmlReading r = gpu->Read();
  EXPECT_EQ(r.power_mw, 250000);
  EXPECT_EQ(r.sm_clock_hz, 1980000000);
  EXPECT_EQ(r.mem_clock_hz, 2619000000);
  EXPECT_DOUBLE_EQ(*r.util, 0.57);
  EXPECT_EQ(r.temperature_c, 41);
  EXPECT_EQ(r.mem_used_bytes, 1073741824);
  // One reading NVML does not answer is left out, not the sample.
  fake::Set(state_, "fail_nvmlDeviceGetTemperature", "3");
  r = gpu->Read();
  EXPECT_FALSE(r.temperature_c.has_value());
  EXPECT_EQ(r.power_mw, 250000);
}

TEST_F(NvmlGpuTest, AGpuLostMidRunReadsNothingAndRefusesWrites) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  fake::Set(state_, "lost", "1");
  NvmlReading r = gpu->Read();
  EXPECT_FALSE(r.power_mw.has_value());
  EXPECT_FALSE(r.sm_clock_hz.has_value());
  EXPECT_TRUE(gpu->lost());
  EXPECT_TRUE(absl::IsUnavailable(gpu->SetPowerLimitMw(300000)));
  EXPECT_FALSE(gpu->EnergyJ().ok());
}

TEST_F(NvmlGpuTest, KnobsSetReadBackAndGoBackWhenAModeLeavesThem) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  HostGpuKnobs knobs(gpu.get(), dir_ + "/gpu-restore.txt");
  EXPECT_EQ(knobs.not_settable(), "");
  EXPECT_EQ(knobs.min_limit_w(), 200);
  EXPECT_EQ(knobs.max_limit_w(), 700);
  auto set = knobs.Apply(300, 990'000'000);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->power_limit_w, 300);
  EXPECT_EQ(set->sm_clock_hz, 990'000'000);
  EXPECT_TRUE(set->notes.empty());
  EXPECT_EQ(Key("limit_mw"), "300000");
  EXPECT_EQ(Key("locked_mhz"), "990");
  // Power under the knobs is what the GPU reports (the fake scales it).
  EXPECT_EQ(gpu->Read().power_mw, 250000.0 * 990 / 1980);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
  // The next mode leaves both: they go back to the GPU's own.
  set = knobs.Apply(0, 0);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
}

TEST_F(NvmlGpuTest, RestorePutsTheOriginalLimitBackAndUnlocksClocks) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  HostGpuKnobs knobs(gpu.get(), dir_ + "/gpu-restore.txt");
  ASSERT_TRUE(knobs.Apply(450, 1500'000'000).ok());
  EXPECT_TRUE(knobs.Restore().empty());
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/gpu-restore.txt"));
}

TEST_F(NvmlGpuTest, BadValuesAreRefusedNamingTheFieldAndNothingChanges) {
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  HostGpuKnobs knobs(gpu.get(), "");
  auto set = knobs.Apply(150, 0);
  ASSERT_FALSE(set.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(set.status()));
  EXPECT_THAT(set.status().message(),
              HasSubstr("gpu_power_limit_w: 150 W is outside GPU 0 (NVIDIA "
                        "H100 80GB HBM3)'s range 200..700 W"));
  set = knobs.Apply(0, 1000'000'000);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("gpu_freq_hz: 1000000000 is not a supported SM clock"));
  EXPECT_THAT(set.status().message(), HasSubstr("nearest: 990000000"));
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
}

TEST_F(NvmlGpuTest, AClockNvmlCannotLockFailsAndTheLimitGoesBack) {
  fake::Set(state_, "fail_nvmlDeviceSetGpuLockedClocks", "3");
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  HostGpuKnobs knobs(gpu.get(), "");
  auto set = knobs.Apply(300, 990'000'000);
  ASSERT_FALSE(set.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(set.status()));
  EXPECT_THAT(set.status().message(),
              HasSubstr("gpu_freq_hz: cannot lock the SM clock of GPU 0: "
                        "nvmlDeviceSetGpuLockedClocks"));
  EXPECT_THAT(set.status().message(), HasSubstr("Not Supported"));
  EXPECT_EQ(Key("limit_mw"), "700000");
}

TEST_F(NvmlGpuTest, WithoutPermissionTheKnobsSayWhyAndRefuse) {
  fake::Set(state_, "no_permission", "1");
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  HostGpuKnobs knobs(gpu.get(), "");
  EXPECT_THAT(knobs.not_settable(),
              HasSubstr("no permission: nvmlDeviceSetPowerManagementLimit"));
  EXPECT_THAT(knobs.not_settable(), HasSubstr("run the agent as root"));
  EXPECT_FALSE(knobs.limit_settable());
  EXPECT_FALSE(knobs.clock_settable());
  auto set = knobs.Apply(300, 0);
  ASSERT_FALSE(set.ok());
  EXPECT_THAT(set.status().message(),
              HasSubstr("gpu_power_limit_w: not settable on GPU 0"));
  EXPECT_THAT(set.status().message(), HasSubstr("Insufficient Permissions"));
}

TEST_F(NvmlGpuTest, AfterACrashTheNextAgentRestoresFromTheFile) {
  const std::string file = dir_ + "/gpu-restore.txt";
  {
    auto gpu = Open();
    ASSERT_NE(gpu, nullptr);
    // An agent that dies with the mode applied: no Restore().
    HostGpuKnobs knobs(gpu.get(), file);
    ASSERT_TRUE(knobs.Apply(250, 600'000'000).ok());
  }
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(Key("limit_mw"), "250000");
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  std::vector<std::string> notes;
  ASSERT_TRUE(HostGpuKnobs::RestoreFromFile(*gpu, file, &notes).ok());
  EXPECT_EQ(Key("limit_mw"), "700000");
  EXPECT_EQ(Key("locked_mhz"), "0");
  EXPECT_FALSE(std::filesystem::exists(file));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_THAT(notes[0], HasSubstr("GPU power limit set back to 700 W"));
}

TEST_F(NvmlGpuTest, ARestoreFileOfAnotherGpuIsLeftAlone) {
  const std::string file = dir_ + "/gpu-restore.txt";
  {
    auto gpu = Open();
    ASSERT_NE(gpu, nullptr);
    HostGpuKnobs knobs(gpu.get(), file);
    ASSERT_TRUE(knobs.Apply(250, 0).ok());
  }
  fake::Set(state_, "uuid", "GPU-other");
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  std::vector<std::string> notes;
  ASSERT_TRUE(HostGpuKnobs::RestoreFromFile(*gpu, file, &notes).ok());
  EXPECT_EQ(Key("limit_mw"), "250000");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_THAT(notes[0], HasSubstr("is for GPU GPU-5f0c-fake, not GPU-other"));
}

TEST_F(NvmlGpuTest, ARestoreFileThatIsNotOneIsRefused) {
  const std::string file = dir_ + "/gpu-restore.txt";
  { std::ofstream(file) << "limit 1\n"; }
  auto gpu = Open();
  ASSERT_NE(gpu, nullptr);
  std::vector<std::string> notes;
  absl::Status s = HostGpuKnobs::RestoreFromFile(*gpu, file, &notes);
  EXPECT_TRUE(absl::IsFailedPrecondition(s));
  EXPECT_THAT(s.message(), HasSubstr("is not a GPU restore file"));
}

}  // namespace
}  // namespace powersweep
