#include "agent/runtime/docker/container_stats.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& rel) {
  std::ifstream in(std::string(FIXTURES_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

class CgroupTreeTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(testing::TempDir()) /
            testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  fs::path root_;
};

TEST_F(CgroupTreeTest, V1ReadsCpuacctAndMemoryControllers) {
  const std::string path = "powersweep-containers/ps-h-r1-a1-t0";
  Write(root_ / "cpuacct" / path / "cpuacct.usage", "2500000000\n");
  const long hz = sysconf(_SC_CLK_TCK);
  Write(root_ / "cpuacct" / path / "cpuacct.stat",
        "user " + std::to_string(2 * hz) + "\nsystem " +
            std::to_string(hz / 2) + "\n");
  Write(root_ / "memory" / path / "memory.usage_in_bytes", "104857600\n");
  Write(root_ / "memory" / path / "memory.max_usage_in_bytes", "209715200\n");
  Write(root_ / "memory" / path / "memory.stat",
        Fixture("cgroup/v1-memory.stat"));
  CgroupStatsReader reader(root_.string(), path);
  EXPECT_FALSE(reader.v2());
  absl::StatusOr<ContainerStats> s = reader.Read();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->cpu_s, 2.5);
  EXPECT_DOUBLE_EQ(s->cpu_user_s, 2.0);
  EXPECT_DOUBLE_EQ(s->cpu_system_s, 0.5);
  EXPECT_EQ(s->memory_usage_bytes, 104857600);
  EXPECT_EQ(s->memory_peak_bytes, 209715200);
  EXPECT_EQ(s->memory.pgfault, 80900);
  EXPECT_EQ(s->memory.dirty_bytes, 8192);
  // Values move between reads (the file is re-read each time).
  Write(root_ / "cpuacct" / path / "cpuacct.usage", "3000000000\n");
  s = reader.Read();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->cpu_s, 3.0);
}

TEST_F(CgroupTreeTest, V2ReadsTheUnifiedFiles) {
  Write(root_ / "cgroup.controllers", "cpu memory\n");
  const std::string path = "powersweep-containers/ps-h-r1-a1-t0";
  Write(root_ / path / "cpu.stat",
        "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n");
  Write(root_ / path / "memory.current", "1000\n");
  Write(root_ / path / "memory.peak", "5000\n");
  Write(root_ / path / "memory.stat", Fixture("cgroup/v2-memory.stat"));
  CgroupStatsReader reader(root_.string(), path);
  EXPECT_TRUE(reader.v2());
  absl::StatusOr<ContainerStats> s = reader.Read();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->cpu_s, 1.5);
  EXPECT_DOUBLE_EQ(s->cpu_user_s, 1.0);
  EXPECT_EQ(s->memory_usage_bytes, 1000);
  EXPECT_EQ(s->memory_peak_bytes, 5000);
  EXPECT_EQ(s->memory.pgmajfault, 12);
}

TEST_F(CgroupTreeTest, AMissingCgroupNamesTheFile) {
  CgroupStatsReader reader(root_.string(), "powersweep-containers/none");
  absl::StatusOr<ContainerStats> s = reader.Read();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "cpuacct/powersweep-containers/none/cpuacct.usage"),
            std::string::npos)
      << s.status();
}

TEST_F(CgroupTreeTest, RemoveCgroupDirsRemovesTheGroupInEveryHierarchy) {
  const std::string path = "powersweep-containers/ps-x";
  for (const char* c : {"cpu", "cpuacct", "memory", "pids"}) {
    fs::create_directories(root_ / c / path);
  }
  fs::create_directories(root_ / "blkio");  // a hierarchy without the group
  EXPECT_TRUE(RemoveCgroupDirs(root_.string(), path).ok());
  for (const char* c : {"cpu", "cpuacct", "memory", "pids"}) {
    EXPECT_FALSE(fs::exists(root_ / c / path)) << c;
    EXPECT_TRUE(fs::exists(root_ / c / "powersweep-containers")) << c;
  }
  // Gone already: still fine.
  EXPECT_TRUE(RemoveCgroupDirs(root_.string(), path).ok());
}

TEST(VmHwmTest, ParsesKilobytes) {
  absl::StatusOr<int64_t> b = ParseVmHwm(
      "Name:\tpowersweep-work\nVmPeak:\t 2000000 kB\nVmHWM:\t  183460 kB\n"
      "VmRSS:\t  150000 kB\n");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, 183460LL * 1024);
  EXPECT_FALSE(ParseVmHwm("Name:\tx\nVmRSS:\t 1 kB\n").ok());
}

}  // namespace
}  // namespace powersweep
