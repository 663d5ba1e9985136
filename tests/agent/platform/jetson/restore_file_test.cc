// The restore file is not trusted: on the fake sysfs trees, entries whose
// path discovery did not find, or whose value is not of the expected kind,
// are skipped with a warning naming the path; a symlinked file or state
// dir is refused.
#include "agent/platform/jetson/restore_file.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/util/state_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu[] = "/sys/devices/system/cpu";

std::string StateDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/restore_file_test-" + name;
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(PrepareStateDir(dir, "--work_dir").ok());
  return dir;
}

bool AnyWriteContains(const std::vector<std::string>& writes,
                      const std::string& part) {
  for (const std::string& w : writes) {
    if (absl::StrContains(w, part)) return true;
  }
  return false;
}

TEST(JetsonRestoreFileTest, PathsOutsideDiscoveryAreSkippedWithAWarning) {
  auto probe = MakeRig("orin-agx-jp5");
  const BoardInfo& board = probe->platform->board();
  BoardState s;
  s.online_cpus = {1, 99};
  s.offline_cpus = {0};
  s.clusters = {{absl::StrCat(kCpu, "/cpu0/cpufreq"), 115200, 2201600},
                {"/etc/cron.d", 1, 2},
                {absl::StrCat(kCpu, "/cpu0/cpufreq/../../../../../etc"), 1, 2}};
  s.has_gpu = true;
  s.gpu_devfreq_dir = "/tmp/not-the-gpu";
  s.gpu_power_control = board.gpu.power_control;
  s.gpu_control = "auto";
  s.gpu_min_hz = 1;
  s.gpu_max_hz = 2;
  s.cores_touched = s.cpu_touched = s.gpu_touched = true;

  std::vector<std::string> warnings;
  BoardState kept = KeepDiscoveredKnobs(s, board, &warnings);
  EXPECT_EQ(kept.online_cpus, std::vector<int>{1});
  EXPECT_TRUE(kept.offline_cpus.empty());
  ASSERT_EQ(kept.clusters.size(), 1u);
  EXPECT_EQ(kept.clusters[0].cpufreq_dir, absl::StrCat(kCpu, "/cpu0/cpufreq"));
  EXPECT_FALSE(kept.has_gpu);
  const std::string all = absl::StrJoin(warnings, "\n");
  EXPECT_THAT(all, HasSubstr(absl::StrCat(kCpu, "/cpu99/online is not a knob "
                                                "discovery found")));
  EXPECT_THAT(all, HasSubstr(absl::StrCat(kCpu, "/cpu0/online")));
  EXPECT_THAT(all, HasSubstr("/etc/cron.d is not a knob"));
  EXPECT_THAT(all, HasSubstr("/tmp/not-the-gpu is not a knob"));

  // The agent's start: the file is applied without the foreign entries.
  const std::string dir = StateDir("outside");
  JetsonPlatformOptions opts;
  opts.restore_state_path = dir + "/jetson-restore.json";
  ASSERT_TRUE(WriteRestoreFile(opts.restore_state_path, s).ok());
  auto rig = MakeRig("", opts, probe->root);
  ASSERT_NE(rig->platform, nullptr);
  const std::vector<std::string> writes = rig->Writes();
  EXPECT_TRUE(AnyWriteContains(writes, absl::StrCat(kCpu, "/cpu1/online=1")));
  EXPECT_TRUE(AnyWriteContains(
      writes, absl::StrCat(kCpu, "/cpu0/cpufreq/scaling_max_freq=2201600")));
  EXPECT_FALSE(AnyWriteContains(writes, "cpu99"));
  EXPECT_FALSE(AnyWriteContains(writes, "/etc"));
  EXPECT_FALSE(AnyWriteContains(writes, "not-the-gpu"));
  EXPECT_FALSE(AnyWriteContains(writes, board.gpu.power_control));
  EXPECT_FALSE(std::filesystem::exists(opts.restore_state_path));
}

TEST(JetsonRestoreFileTest, ValuesOfTheWrongKindAreSkippedNamingThePath) {
  const std::string json = R"({
    "version": 1,
    "online_cpus": [1, "2", 1e300, 3.5],
    "offline_cpus": [],
    "clusters": [
      {"cpufreq_dir": "/sys/devices/system/cpu/cpu0/cpufreq",
       "min_khz": "115200; reboot", "max_khz": 2201600},
      {"cpufreq_dir": "/sys/devices/system/cpu/cpu4/cpufreq",
       "min_khz": 115200, "max_khz": 1e300}
    ],
    "has_gpu": true,
    "gpu_devfreq_dir": "/sys/class/devfreq/17000000.ga10b",
    "gpu_power_control": "/sys/devices/17000000.ga10b/power/control",
    "gpu_control": "performance",
    "gpu_min_hz": 1, "gpu_max_hz": 2,
    "has_emc": true,
    "emc_rate_hz": 3199000000, "emc_locked": 7, "emc_state": 1,
    "cores_touched": true, "cpu_touched": true
  })";
  std::vector<std::string> warnings;
  absl::StatusOr<BoardState> s = StateFromJson(json, &warnings);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->online_cpus, std::vector<int>{1});
  EXPECT_TRUE(s->clusters.empty());
  EXPECT_FALSE(s->has_gpu);
  EXPECT_FALSE(s->has_emc);
  const std::string all = absl::StrJoin(warnings, "\n");
  EXPECT_THAT(all, HasSubstr("online_cpus entry \"2\" is not a CPU number"));
  EXPECT_THAT(all, HasSubstr(
                       "/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq:"
                       " value \"115200; reboot\" is not a positive integer"));
  EXPECT_THAT(all,
              HasSubstr("/sys/devices/system/cpu/cpu4/cpufreq/scaling_max_freq"));
  EXPECT_THAT(all, HasSubstr("/sys/devices/17000000.ga10b/power/control: "
                             "value \"performance\" is not auto or on"));
  EXPECT_THAT(all, HasSubstr(absl::StrCat(kEmcDir, "/mrq_rate_locked: value 7"
                                                   " is not 0 or 1")));
}

TEST(JetsonRestoreFileTest, ASymlinkedRestoreFileStopsTheStart) {
  const std::string dir = StateDir("symlink-file");
  const std::string elsewhere = dir + "/elsewhere.json";
  ASSERT_TRUE(WriteRestoreFile(elsewhere, BoardState()).ok());
  JetsonPlatformOptions opts;
  opts.restore_state_path = dir + "/jetson-restore.json";
  std::filesystem::create_symlink(elsewhere, opts.restore_state_path);
  opts.sysfs_root = CopyFixture("nano-jp4");
  FakeClock clock;
  auto platform = JetsonPlatform::Create(opts, &clock);
  ASSERT_FALSE(platform.ok());
  EXPECT_EQ(platform.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(platform.status().message()),
              HasSubstr(opts.restore_state_path + ": is a symlink"));
}

TEST(JetsonRestoreFileTest, ASymlinkedStateDirIsRefused) {
  const std::string real = StateDir("symlink-dir-real");
  const std::string link = real + "-link";
  std::filesystem::remove(link);
  std::filesystem::create_directory_symlink(real, link);
  absl::Status s = PrepareStateDir(link, "--work_dir");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat("--work_dir: ", link, " is a symlink")));
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
