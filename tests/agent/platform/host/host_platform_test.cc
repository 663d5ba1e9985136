#include "agent/platform/host/host_platform.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {


HostPlatformOptions FourCpus() {
  HostPlatformOptions o;
  o.device_id = "host-7";
  o.allowed_cpus = {0, 1, 2, 3};
  o.proc_root = FIXTURES_DIR "/proc";
  // Never touch this machine's cgroups or RAPL from a unit test.
  o.cgroup_root = testing::TempDir() + "/host_platform_no_cgroup";
  o.use_rapl = false;
  return o;
}

TEST(HostPlatform, DescribesTheHostsCoresAndMemoryButNoCatalog) {
  auto p = HostPlatform::Create(FourCpus());
  ASSERT_TRUE(p.ok()) << p.status();
  v1::DeviceIdentity id = (*p)->Identity();
  EXPECT_EQ(id.device_id(), "host-7");
  EXPECT_EQ(id.device_class(), "host");
  EXPECT_EQ(id.platform(), "host");
  EXPECT_FALSE(id.kernel().empty());
  v1::DeviceCapabilities caps = (*p)->Capabilities();
  EXPECT_EQ(caps.cpu_cores(), 4);
  EXPECT_EQ(caps.memory_bytes(), 16384000LL * 1024);
  // Runtimes, models and data sets are the agent's (agent/run/capabilities).
  EXPECT_EQ(caps.runtimes_size(), 0);
  EXPECT_EQ(caps.models_size(), 0);
  EXPECT_EQ(caps.datasets_size(), 0);
}

TEST(HostPlatform, ApplyCoresPinsToTheFirstNCpus) {
  auto p = HostPlatform::Create(FourCpus());
  ASSERT_TRUE(p.ok());
  v1::PowerMode mode;
  mode.set_cpu_cores(2);
  auto applied = (*p)->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ((*p)->RunCpus(), (std::vector<int>{0, 1}));
  EXPECT_EQ(applied->actual().cpu_cores(), 2);
  EXPECT_EQ(applied->requested().cpu_cores(), 2);
  EXPECT_EQ(applied->cores_provenance(), v1::PROVENANCE_MEASURED);
  (*p)->Restore();
  EXPECT_EQ((*p)->RunCpus(), (std::vector<int>{0, 1, 2, 3}));
}

TEST(HostPlatform, ZeroCoresMeansEveryAgentCpu) {
  auto p = HostPlatform::Create(FourCpus());
  ASSERT_TRUE(p.ok());
  auto applied = (*p)->Apply(v1::PowerMode());
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(applied->actual().cpu_cores(), 4);
  EXPECT_EQ((*p)->RunCpus().size(), 4u);
}

TEST(HostPlatform, TooManyCoresIsRejectedNamingCpuCores) {
  auto p = HostPlatform::Create(FourCpus());
  ASSERT_TRUE(p.ok());
  v1::PowerMode mode;
  mode.set_cpu_cores(5);
  auto applied = (*p)->Apply(mode);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(applied.status().message().find("cpu_cores"), std::string::npos);
  EXPECT_EQ((*p)->RunCpus().size(), 4u);  // unchanged
}

TEST(HostPlatform, PresetAndGpuFrequencyAreRejected) {
  auto p = HostPlatform::Create(FourCpus());
  ASSERT_TRUE(p.ok());
  v1::PowerMode gpu;
  gpu.set_cpu_cores(1);
  gpu.set_gpu_freq_hz(1200000);
  auto a = (*p)->Apply(gpu);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find("gpu_freq_hz"), std::string::npos);
  EXPECT_EQ((*p)->RunCpus().size(), 4u);
  v1::PowerMode preset;
  preset.set_preset("MAXN");
  auto b = (*p)->Apply(preset);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("preset"), std::string::npos);
}

TEST(HostPlatform, CpusFlagRestrictsTheAgent) {
  HostPlatformOptions o = FourCpus();
  o.cpus = "1,3";
  auto p = HostPlatform::Create(o);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Capabilities().cpu_cores(), 2);
  v1::PowerMode mode;
  mode.set_cpu_cores(1);
  ASSERT_TRUE((*p)->Apply(mode).ok());
  EXPECT_EQ((*p)->RunCpus(), (std::vector<int>{1}));
}

TEST(HostPlatform, CpusFlagOutsideTheAllowedSetIsAnError) {
  HostPlatformOptions o = FourCpus();
  o.cpus = "2-5";
  auto p = HostPlatform::Create(o);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--cpus: CPU 4"), std::string::npos);
  o.cpus = "1-x";
  EXPECT_EQ(HostPlatform::Create(o).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HostPlatform, SampleReadsCpufreqWhereItExists) {
  std::string sys = testing::TempDir() + "/host_platform_sys";
  std::filesystem::create_directories(sys + "/devices/system/cpu/cpu1/cpufreq");
  std::ofstream(sys + "/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq")
      << "1497600\n";
  HostPlatformOptions o = FourCpus();
  o.sys_root = sys;
  auto p = HostPlatform::Create(o);
  ASSERT_TRUE(p.ok());
  v1::TelemetrySample s;
  s.add_cores();
  s.add_cores();
  (*p)->Sample({0, 1}, &s);
  EXPECT_EQ(s.cores(0).freq_khz(), 0);  // no cpufreq for cpu0: unknown
  EXPECT_EQ(s.cores(1).freq_khz(), 1497600);
  // No RAPL: the power is the documented model, labelled as such.
  EXPECT_GT(s.power_mw(), 0);
  EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_MODELED);
}

}  // namespace
}  // namespace powersweep
