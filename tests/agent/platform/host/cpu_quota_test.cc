#include "agent/platform/host/cpu_quota.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "agent/platform/host/cpu_freq.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string FreshDir(const std::string& name) {
  std::string dir = testing::TempDir() + "/cpu_quota_test_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(CpuQuotaTest, QuotaIsProportionalToFrequencyAndCpus) {
  auto half = QuotaForFrequency(1000000, 2000000, 2);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->quota_us, 100000);  // 2 CPUs x 100 ms x 0.5
  EXPECT_EQ(half->period_us, 100000);
  auto tenth = QuotaForFrequency(220000, 2200000, 4);
  ASSERT_TRUE(tenth.ok());
  EXPECT_EQ(tenth->quota_us, 40000);
  EXPECT_EQ(EmulatedFrequencyKhz(*tenth, 2200000, 4), 220000);
  // Above the maximum: the whole CPUs, no more.
  EXPECT_EQ(QuotaForFrequency(3000000, 2000000, 3)->quota_us, 300000);
  // Never below the kernel's minimum of 1 ms.
  EXPECT_EQ(QuotaForFrequency(1, 2000000, 1)->quota_us, kMinQuotaUs);
}

TEST(CpuQuotaTest, ImpossibleRequestsNameTheField) {
  for (auto [f, m, n] : {std::tuple{0L, 2000000L, 1}, {1000L, 0L, 1},
                         {1000L, 2000000L, 0}}) {
    auto q = QuotaForFrequency(f, m, n);
    ASSERT_FALSE(q.ok());
    EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(q.status().message(), HasSubstr("cpu_freq_khz"));
  }
}

TEST(CpuQuotaTest, CgroupV2WritesCpuMaxAndEnablesTheController) {
  std::string root = FreshDir("v2");
  std::ofstream(root + "/cgroup.controllers") << "cpuset cpu io memory pids\n";
  std::ofstream(root + "/cgroup.subtree_control") << "memory\n";
  auto cg = CpuQuotaCgroup::Open(root, "powersweep-host-0");
  ASSERT_TRUE(cg.ok()) << cg.status();
  EXPECT_EQ(cg->version(), CpuQuotaCgroup::Version::kV2);
  EXPECT_EQ(Slurp(root + "/cgroup.subtree_control"), "+cpu");
  ASSERT_TRUE(cg->Set({25000, 100000}).ok());
  EXPECT_EQ(Slurp(root + "/powersweep-host-0/cpu.max"), "25000 100000");
  ASSERT_TRUE(cg->Attach(4242).ok());
  EXPECT_EQ(Slurp(root + "/powersweep-host-0/cgroup.procs"), "4242");
  ASSERT_TRUE(cg->Clear().ok());
  EXPECT_EQ(Slurp(root + "/powersweep-host-0/cpu.max"), "max 100000");
}

TEST(CpuQuotaTest, HybridHierarchyUsesTheUnifiedMountWithCpu) {
  std::string root = FreshDir("hybrid");
  std::filesystem::create_directories(root + "/unified");
  std::ofstream(root + "/unified/cgroup.controllers") << "cpu memory\n";
  std::ofstream(root + "/unified/cgroup.subtree_control") << "cpu\n";
  auto cg = CpuQuotaCgroup::Open(root, "ps");
  ASSERT_TRUE(cg.ok()) << cg.status();
  EXPECT_EQ(cg->QuotaFile(), root + "/unified/ps/cpu.max");
  EXPECT_EQ(Slurp(root + "/unified/cgroup.subtree_control"), "cpu\n");
}

TEST(CpuQuotaTest, CgroupV1WritesCfsQuotaAndPeriod) {
  std::string root = FreshDir("v1");
  std::filesystem::create_directories(root + "/cpu");
  std::ofstream(root + "/cpu/cpu.cfs_quota_us") << "-1\n";
  std::filesystem::create_directories(root + "/unified");
  std::ofstream(root + "/unified/cgroup.controllers") << "\n";  // no cpu
  auto cg = CpuQuotaCgroup::Open(root, "ps");
  ASSERT_TRUE(cg.ok()) << cg.status();
  EXPECT_EQ(cg->version(), CpuQuotaCgroup::Version::kV1);
  ASSERT_TRUE(cg->Set({50000, 100000}).ok());
  EXPECT_EQ(Slurp(root + "/cpu/ps/cpu.cfs_quota_us"), "50000");
  EXPECT_EQ(Slurp(root + "/cpu/ps/cpu.cfs_period_us"), "100000");
  ASSERT_TRUE(cg->Clear().ok());
  EXPECT_EQ(Slurp(root + "/cpu/ps/cpu.cfs_quota_us"), "-1");
}

TEST(CpuQuotaTest, NoCpuControllerIsAnErrorNamingTheFiles) {
  std::string root = FreshDir("none");
  std::ofstream(root + "/cgroup.controllers") << "memory pids\n";
  auto cg = CpuQuotaCgroup::Open(root, "ps");
  ASSERT_FALSE(cg.ok());
  EXPECT_EQ(cg.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cg.status().message(), HasSubstr(root + "/cgroup.controllers"));
  EXPECT_THAT(cg.status().message(), HasSubstr(root + "/cpu/cpu.cfs_quota_us"));
}

TEST(CpuQuotaTest, UnwritableQuotaFileIsNamed) {
  std::string root = FreshDir("ro");
  std::ofstream(root + "/cgroup.controllers") << "cpu\n";
  std::ofstream(root + "/cgroup.subtree_control") << "cpu\n";
  auto cg = CpuQuotaCgroup::Open(root, "ps");
  ASSERT_TRUE(cg.ok());
  // A directory where the file should be: the write must fail, naming it.
  std::filesystem::create_directories(root + "/ps/cpu.max");
  absl::Status st = cg->Set({1000, 100000});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr(root + "/ps/cpu.max"));
}

// HostCpuFrequency on a tree without cpufreq emulates with the quota.
TEST(HostCpuFrequencyTest, WithoutCpufreqTheFrequencyIsEmulatedByQuota) {
  std::string root = FreshDir("emulate");
  std::filesystem::create_directories(root + "/sys");
  std::filesystem::create_directories(root + "/proc");
  std::filesystem::create_directories(root + "/cg");
  std::ofstream(root + "/proc/cpuinfo")
      << "processor\t: 0\ncpu MHz\t\t: 1999.998\n\nprocessor\t: 1\n"
         "cpu MHz\t\t: 2000.000\n";
  std::ofstream(root + "/cg/cgroup.controllers") << "cpu\n";
  std::ofstream(root + "/cg/cgroup.subtree_control") << "cpu\n";
  HostCpuFrequencyOptions o;
  o.sys_root = root + "/sys";
  o.proc_root = root + "/proc";
  o.cgroup_root = root + "/cg";
  o.cgroup_name = "powersweep-h";
  HostCpuFrequency f(o, {0, 1});
  EXPECT_FALSE(f.has_cpufreq());
  EXPECT_EQ(f.max_khz(), 2000000);
  EXPECT_EQ(f.Available().size(), 10u);
  auto set = f.Set(500000, {0, 1});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->actual_khz, 500000);
  EXPECT_EQ(set->provenance, v1::PROVENANCE_EMULATED);
  EXPECT_THAT(set->note, HasSubstr(root + "/cg/powersweep-h/cpu.max"));
  EXPECT_EQ(Slurp(root + "/cg/powersweep-h/cpu.max"), "50000 100000");
  ASSERT_TRUE(f.AttachWorkload(77).ok());
  EXPECT_EQ(Slurp(root + "/cg/powersweep-h/cgroup.procs"), "77");
  f.Restore();
  EXPECT_FALSE(f.emulated());
  EXPECT_EQ(Slurp(root + "/cg/powersweep-h/cpu.max"), "max 100000");
}

TEST(HostCpuFrequencyTest, CpufreqIsLoweredMinFirstReadBackAndRestored) {
  std::string root = FreshDir("cpufreq");
  for (int cpu : {0, 1}) {
    std::string d = root + "/devices/system/cpu/cpu" + std::to_string(cpu) +
                    "/cpufreq";
    std::filesystem::create_directories(d);
    std::ofstream(d + "/cpuinfo_min_freq") << "400000\n";
    std::ofstream(d + "/cpuinfo_max_freq") << "3000000\n";
    std::ofstream(d + "/scaling_min_freq") << "1200000\n";
    std::ofstream(d + "/scaling_max_freq") << "3000000\n";
  }
  HostCpuFrequencyOptions o;
  o.sys_root = root;
  HostCpuFrequency f(o, {0, 1});
  ASSERT_TRUE(f.has_cpufreq());
  EXPECT_EQ(f.max_khz(), 3000000);
  auto set = f.Set(800000, {1});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->provenance, v1::PROVENANCE_MEASURED);
  EXPECT_EQ(set->actual_khz, 800000);
  const std::string cpu1 = root + "/devices/system/cpu/cpu1/cpufreq";
  EXPECT_EQ(Slurp(cpu1 + "/scaling_min_freq"), "400000");  // below request
  EXPECT_EQ(Slurp(cpu1 + "/scaling_max_freq"), "800000");
  EXPECT_EQ(Slurp(root + "/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"),
            "3000000\n");  // not a run CPU
  f.Restore();
  EXPECT_EQ(Slurp(cpu1 + "/scaling_min_freq"), "1200000");
  EXPECT_EQ(Slurp(cpu1 + "/scaling_max_freq"), "3000000");
}

}  // namespace
}  // namespace powersweep
