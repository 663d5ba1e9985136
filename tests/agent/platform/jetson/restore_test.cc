// Restore: the recorded mode goes back after Restore(), and at the next
// start when the agent died with a custom mode applied.
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/platform/jetson/board_state.h"
#include "agent/platform/jetson/restore_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::HasSubstr;

constexpr char kCpu[] = "/sys/devices/system/cpu";
constexpr char kEmc[] = "/sys/kernel/debug/bpmp/debug/clk/emc";

// Every knob file of a board, read from the tree.
std::map<std::string, std::string> Knobs(const std::string& root, int cpus,
                                         const std::vector<int>& policies,
                                         const std::string& gpu_device) {
  std::map<std::string, std::string> out;
  std::vector<std::string> paths;
  for (int c = 1; c < cpus; ++c) {
    paths.push_back(absl::StrCat(kCpu, "/cpu", c, "/online"));
  }
  for (int p : policies) {
    for (const char* f : {"scaling_min_freq", "scaling_max_freq"}) {
      paths.push_back(absl::StrCat(kCpu, "/cpufreq/policy", p, "/", f));
    }
  }
  const std::string node = gpu_device.substr(gpu_device.rfind('/') + 1);
  for (const char* f : {"min_freq", "max_freq"}) {
    paths.push_back(absl::StrCat(gpu_device, "/devfreq/", node, "/", f));
  }
  paths.push_back(gpu_device + "/power/control");
  for (const char* f : {"rate", "mrq_rate_locked", "state"}) {
    paths.push_back(absl::StrCat(kEmc, "/", f));
  }
  for (const std::string& p : paths) out[p] = FileText(root, p);
  return out;
}

std::map<std::string, std::string> OrinKnobs(const std::string& root) {
  return Knobs(root, 12, {0, 4, 8}, "/sys/devices/17000000.ga10b");
}

TEST(JetsonRestoreTest, RestorePutsTheOriginalValuesBack) {
  JetsonPlatformOptions opts;
  opts.restore_state_path = ::testing::TempDir() + "/restore-back.json";
  auto rig = MakeRig("orin-agx-jp5", opts);
  const auto before = OrinKnobs(rig->root);
  ASSERT_TRUE(rig->platform->Apply(Mode(4, 729600, 408000000, 3199000000)).ok());
  ASSERT_TRUE(rig->platform->Apply(Mode(8, 1497600, 816000000, 204000000)).ok());
  EXPECT_NE(OrinKnobs(rig->root), before);
  EXPECT_TRUE(std::filesystem::exists(opts.restore_state_path));

  ASSERT_TRUE(rig->platform->RestoreWithStatus().ok());
  EXPECT_EQ(OrinKnobs(rig->root), before);  // not the intermediate mode
  EXPECT_FALSE(std::filesystem::exists(opts.restore_state_path));
  EXPECT_EQ(rig->platform->RunCpus().size(), 12u);
  // A second Restore has nothing to do.
  rig->io->ClearWrites();
  rig->platform->Restore();
  EXPECT_TRUE(rig->io->writes().empty());
}

TEST(JetsonRestoreTest, CoresOfflineAtStartGoOfflineAgainAfterTheFrequencies) {
  const std::string root = CopyFixture("xavier-agx-jp4");
  for (int c : {6, 7}) {
    std::ofstream(root + absl::StrCat(kCpu, "/cpu", c, "/online")) << "0\n";
  }
  auto rig = MakeRig("", {}, root);
  const auto before =
      Knobs(root, 8, {0, 2, 4, 6}, "/sys/devices/17000000.gv11b");
  ASSERT_TRUE(rig->platform->Apply(Mode(8, 1190400, 0, 0)).ok());
  EXPECT_EQ(rig->File(absl::StrCat(kCpu, "/cpu7/online")), "1");
  rig->io->ClearWrites();
  ASSERT_TRUE(rig->platform->RestoreWithStatus().ok());
  const std::vector<std::string> writes = rig->Writes();
  ASSERT_FALSE(writes.empty());
  EXPECT_EQ(writes.back(), absl::StrCat(kCpu, "/cpu6/online=0"));
  EXPECT_EQ(writes[writes.size() - 2], absl::StrCat(kCpu, "/cpu7/online=0"));
  EXPECT_EQ(writes.front(), absl::StrCat(kCpu, "/cpu1/online=1"));
  // The cluster that was offline was not recorded, so it is not rewritten,
  // but everything recorded is back.
  auto after = Knobs(root, 8, {0, 2, 4, 6}, "/sys/devices/17000000.gv11b");
  after.erase(absl::StrCat(kCpu, "/cpufreq/policy6/scaling_min_freq"));
  after.erase(absl::StrCat(kCpu, "/cpufreq/policy6/scaling_max_freq"));
  auto expected = before;
  expected.erase(absl::StrCat(kCpu, "/cpufreq/policy6/scaling_min_freq"));
  expected.erase(absl::StrCat(kCpu, "/cpufreq/policy6/scaling_max_freq"));
  EXPECT_EQ(after, expected);
  EXPECT_EQ(rig->platform->RunCpus(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(JetsonRestoreTest, NextStartRestoresFromTheStateFileTheDeadAgentLeft) {
  JetsonPlatformOptions opts;
  opts.restore_state_path = ::testing::TempDir() + "/restore-crash.json";
  auto first = MakeRig("orin-agx-jp5", opts);
  const auto before = OrinKnobs(first->root);
  ASSERT_TRUE(first->platform->Apply(Mode(2, 345600, 1300500000, 3199000000))
                  .ok());
  first->platform.reset();  // the agent dies without restoring
  ASSERT_TRUE(std::filesystem::exists(opts.restore_state_path));
  EXPECT_EQ(FileText(first->root, absl::StrCat(kCpu, "/cpu5/online")), "0");

  auto second = MakeRig("", opts, first->root);
  ASSERT_NE(second->platform, nullptr);
  EXPECT_EQ(OrinKnobs(second->root), before);
  EXPECT_FALSE(std::filesystem::exists(opts.restore_state_path));
  EXPECT_EQ(second->platform->RunCpus().size(), 12u);
}

TEST(JetsonRestoreTest, UnreadableStateFileStopsTheStartNamingTheFile) {
  JetsonPlatformOptions opts;
  opts.restore_state_path = ::testing::TempDir() + "/restore-bad.json";
  std::ofstream(opts.restore_state_path) << "{not json";
  opts.sysfs_root = CopyFixture("nano-jp4");
  FakeClock clock;
  auto platform = JetsonPlatform::Create(opts, &clock);
  ASSERT_FALSE(platform.ok());
  EXPECT_EQ(platform.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(platform.status().message()),
              HasSubstr(opts.restore_state_path));
  std::filesystem::remove(opts.restore_state_path);
}

TEST(JetsonRestoreTest, StateSurvivesJson) {
  BoardState s;
  s.online_cpus = {1, 2, 3};
  s.offline_cpus = {7};
  s.clusters = {{"/sys/devices/system/cpu/cpu0/cpufreq", 115200, 2201600}};
  s.has_gpu = true;
  s.gpu_devfreq_dir = "/sys/class/devfreq/17000000.gpu";
  s.gpu_power_control = "/sys/class/devfreq/17000000.gpu/device/power/control";
  s.gpu_control = "auto";
  s.gpu_min_hz = 306000000;
  s.gpu_max_hz = 1300500000;
  s.has_emc = true;
  s.emc_rate_hz = 3199000000;
  s.emc_locked = 0;
  s.emc_state = 1;
  s.cores_touched = s.gpu_touched = true;
  absl::StatusOr<BoardState> back = StateFromJson(StateToJson(s));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->online_cpus, s.online_cpus);
  EXPECT_EQ(back->offline_cpus, s.offline_cpus);
  ASSERT_EQ(back->clusters.size(), 1u);
  EXPECT_EQ(back->clusters[0].max_khz, 2201600);
  EXPECT_EQ(back->gpu_max_hz, 1300500000);
  EXPECT_EQ(back->emc_rate_hz, 3199000000);
  EXPECT_EQ(back->emc_state, 1);
  EXPECT_TRUE(back->cores_touched && back->gpu_touched);
  EXPECT_FALSE(back->cpu_touched || back->emc_touched);
  EXPECT_FALSE(StateFromJson("{\"version\": 2}").ok());
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
