#include "agent/telemetry/proc_readers.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

const std::string kProc = FIXTURES_DIR "/proc";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

TEST(ProcStat, ParsesPerCoreJiffiesAndSkipsTheAggregateLine) {
  auto stat = ParseProcStat(Slurp(kProc + "/stat"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  ASSERT_EQ(stat->size(), 2u);
  EXPECT_EQ(stat->at(0).total, 1000u);
  EXPECT_EQ(stat->at(0).idle, 850u);  // idle + iowait
  EXPECT_EQ(stat->at(1).Busy(), 300u);
}

TEST(ProcStat, UtilizationBetweenTwoSnapshotsCountsIowaitAsIdle) {
  auto before = ParseProcStat(Slurp(kProc + "/stat"));
  auto after = ParseProcStat(Slurp(kProc + "/stat.later"));
  ASSERT_TRUE(before.ok() && after.ok());
  EXPECT_DOUBLE_EQ(CoreUtilization(*before, *after, 0), 0.5);
  EXPECT_DOUBLE_EQ(CoreUtilization(*before, *after, 1), 0.25);
  // Same snapshot twice or an unknown CPU: no time passed, 0.
  EXPECT_DOUBLE_EQ(CoreUtilization(*before, *before, 0), 0.0);
  EXPECT_DOUBLE_EQ(CoreUtilization(*before, *after, 7), 0.0);
}

TEST(ProcStat, MalformedLineIsAnErrorNamingTheLine) {
  auto stat = ParseProcStat("cpu0 12 abc 4 5\n");
  ASSERT_FALSE(stat.ok());
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(stat.status().message().find("cpu0 12 abc"), std::string::npos);
}

TEST(ProcStatReader, RereadsTheOpenFile) {
  ProcStatReader reader(kProc);
  auto a = reader.Read();
  auto b = reader.Read();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->at(1).total, b->at(1).total);
}

TEST(Meminfo, ReadsTotalAndAvailableInBytes) {
  MeminfoReader reader(kProc);
  auto mem = reader.Read();
  ASSERT_TRUE(mem.ok()) << mem.status();
  EXPECT_EQ(mem->total_bytes, 16384000LL * 1024);
  EXPECT_EQ(mem->UsedBytes(), (16384000LL - 8192000LL) * 1024);
}

TEST(Meminfo, MissingAvailableIsNamed) {
  auto mem = ParseMeminfo("MemTotal: 100 kB\nMemFree: 50 kB\n");
  ASSERT_FALSE(mem.ok());
  EXPECT_NE(mem.status().message().find("MemAvailable"), std::string::npos);
}

TEST(ProcessReader, CpuSecondsAndRssFromPidStat) {
  // utime 250 + stime 50 ticks at 100 ticks/s; rss 2560 pages of 4 KiB,
  // the same as the fixture's VmRSS; the command has a space.
  ProcessReader reader(kProc, 4242, 100, 4096);
  auto u = reader.Read();
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_DOUBLE_EQ(u->cpu_s, 3.0);
  EXPECT_EQ(u->rss_bytes, 10240LL * 1024);
}

TEST(PidStat, CommandWithParenthesesAndSpacesIsSkipped) {
  auto st = ParsePidStat(
      "7 (a) b (c)) S 1 7 7 0 -1 0 0 0 0 0 12 3 0 0 20 0 1 0 99 4096 77 0\n");
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ(st->ticks, 15u);
  EXPECT_EQ(st->rss_pages, 77);
}

TEST(PidStat, TruncatedLineNamesTheMissingField) {
  auto st = ParsePidStat("7 (w) S 1 7 7 0 -1 0 0 0 0 0 12 3 0 0 20\n");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("rss"), std::string::npos);
}

TEST(ProcessReader, AgreesWithTheKernelsVmRssForThisProcess) {
  ProcessReader reader("/proc", getpid());
  auto u = reader.Read();
  ASSERT_TRUE(u.ok()) << u.status();
  std::ifstream status("/proc/self/status");
  std::string line;
  int64_t vmrss_kb = -1;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) vmrss_kb = std::stoll(line.substr(6));
  }
  ASSERT_GT(vmrss_kb, 0);
  // Read a moment apart: allow 1 MiB of drift.
  EXPECT_NEAR(static_cast<double>(u->rss_bytes), vmrss_kb * 1024.0,
              1024.0 * 1024.0);
}

TEST(ProcessReader, MissingProcessIsNotFound) {
  ProcessReader reader(kProc, 999999, 100, 4096);
  auto u = reader.Read();
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(u.status().message().find("999999/stat"), std::string::npos);
}

}  // namespace
}  // namespace powersweep
