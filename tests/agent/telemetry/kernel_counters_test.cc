#include "agent/telemetry/kernel_counters.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::string Fixture(const std::string& rel) {
  std::ifstream in(std::string(FIXTURES_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(VmstatTest, ReadsTheStudysCountersFromARealVmstat) {
  VmstatReader reader(std::string(FIXTURES_DIR) + "/proc");
  absl::StatusOr<VmstatCounters> c = reader.Read();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->pgfault, 317196020);
  EXPECT_EQ(c->pgmajfault, 1350);
  EXPECT_EQ(c->nr_dirty_pages, 14822);
  EXPECT_EQ(c->nr_writeback_pages, 0);
  EXPECT_EQ(c->pgpgout_kib, 41831984);
  EXPECT_EQ(c->nr_written_pages, 10375933);
}

TEST(VmstatTest, AMissingCounterIsNamed) {
  std::string text = absl::StrReplaceAll(Fixture("proc/vmstat"),
                                         {{"\nnr_written ", "\nnr_xwritten "}});
  absl::StatusOr<VmstatCounters> c = ParseVmstat(text);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("\"nr_written\""), std::string::npos)
      << c.status();
}

TEST(VmstatTest, AMalformedLineIsNamedByNumber) {
  absl::StatusOr<VmstatCounters> c = ParseVmstat("pgfault 1\npgmajfault x\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("line 2"), std::string::npos)
      << c.status();
}

TEST(VmstatTest, AMissingFileNamesThePath) {
  VmstatReader reader("/nonexistent-proc");
  absl::StatusOr<VmstatCounters> c = reader.Read();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("/nonexistent-proc/vmstat"),
            std::string::npos);
}

TEST(CgroupMemoryStatTest, V1UsesTheHierarchicalTotals) {
  // A parent cgroup: its own counters are 0, its children's are in total_*.
  absl::StatusOr<CgroupMemoryStat> s =
      ParseCgroupMemoryStat(Fixture("cgroup/v1-memory.stat"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->cgroup_v2);
  EXPECT_EQ(s->anon_bytes, 52428800);
  EXPECT_EQ(s->file_bytes, 26464256);
  EXPECT_EQ(s->mapped_file_bytes, 20971520);
  EXPECT_EQ(s->dirty_bytes, 8192);
  EXPECT_EQ(s->writeback_bytes, 4096);
  EXPECT_EQ(s->pgfault, 80900);
  EXPECT_EQ(s->pgmajfault, 7);
  ASSERT_TRUE(s->pgpgout_events.has_value());
  EXPECT_EQ(*s->pgpgin_events, 75114);
  EXPECT_EQ(*s->pgpgout_events, 74846);
}

TEST(CgroupMemoryStatTest, V1WithoutHierarchyUsesTheLocalCounters) {
  absl::StatusOr<CgroupMemoryStat> s = ParseCgroupMemoryStat(
      "cache 10\nrss 20\nmapped_file 5\ndirty 1\nwriteback 2\npgpgin 3\n"
      "pgpgout 4\npgfault 100\npgmajfault 6\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->anon_bytes, 20);
  EXPECT_EQ(s->pgfault, 100);
  EXPECT_EQ(*s->pgpgout_events, 4);
}

TEST(CgroupMemoryStatTest, V2KeysAreRecognized) {
  absl::StatusOr<CgroupMemoryStat> s =
      ParseCgroupMemoryStat(Fixture("cgroup/v2-memory.stat"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->cgroup_v2);
  EXPECT_EQ(s->anon_bytes, 41943040);
  EXPECT_EQ(s->file_bytes, 26464256);
  EXPECT_EQ(s->mapped_file_bytes, 10485760);
  EXPECT_EQ(s->dirty_bytes, 12288);
  EXPECT_EQ(s->writeback_bytes, 0);
  EXPECT_EQ(s->pgfault, 91234);
  EXPECT_EQ(s->pgmajfault, 12);
  EXPECT_FALSE(s->pgpgout_events.has_value());
}

TEST(CgroupMemoryStatTest, AMissingKeyIsNamedWithTheVersion) {
  std::string text = absl::StrReplaceAll(Fixture("cgroup/v2-memory.stat"),
                                         {{"\npgmajfault ", "\npgXmajfault "}});
  absl::StatusOr<CgroupMemoryStat> s = ParseCgroupMemoryStat(text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "memory.stat: no \"pgmajfault\" line (cgroup v2)");
}

TEST(CgroupMemoryStatTest, ReaderErrorsNameTheFile) {
  CgroupMemoryStatReader reader(std::string(FIXTURES_DIR) +
                                "/proc/meminfo");  // not a memory.stat
  absl::StatusOr<CgroupMemoryStat> s = reader.Read();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("proc/meminfo"), std::string::npos)
      << s.status();
}

}  // namespace
}  // namespace powersweep
