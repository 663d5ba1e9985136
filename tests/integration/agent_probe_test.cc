// `powersweep-agent probe` run as a user runs it: on every fixture board
// tree (jetson), on this machine (host) and on a twin, with no controller.
#include <sys/wait.h>

#include <ostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/subprocess.h"

namespace powersweep {
namespace testing {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

struct Probed {
  int exit_code = -1;
  std::string output;
};

Probed Probe(const std::vector<std::string>& args) {
  const std::string dir = MakeTempDir("probe");
  std::vector<std::string> argv = {POWERSWEEP_AGENT_BIN, "probe"};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess p(argv, dir + "/out.txt");
  Probed out;
  const int status = p.Wait();
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.output = p.Log();
  return out;
}

struct BoardCase {
  std::string tree;
  std::string device_class;
  std::string space;      // the custom-space line
  std::string preset;     // one preset the probe must list
  std::string rail;       // one rail it must find and sample
};

void PrintTo(const BoardCase& c, std::ostream* os) { *os << c.tree; }

class ProbeBoardTest : public ::testing::TestWithParam<BoardCase> {};

TEST_P(ProbeBoardTest, PrintsBoardKnobsSensorsModesAndASample) {
  const BoardCase& c = GetParam();
  Probed p = Probe({"--platform", "jetson", "--sysfs-root",
                    std::string(FIXTURES_DIR) + "/sysfs/" + c.tree});
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_THAT(p.output,
              ::testing::ContainsRegex("  class +" + c.device_class + "\n"));
  EXPECT_THAT(p.output, HasSubstr("cpu_cores"));
  EXPECT_THAT(p.output, HasSubstr("gpu_freq_hz"));
  EXPECT_THAT(p.output, HasSubstr(c.space + " = "));
  EXPECT_THAT(p.output, HasSubstr(c.preset));
  EXPECT_THAT(p.output, HasSubstr("rail " + c.rail));
  EXPECT_THAT(p.output, HasSubstr("power "));
  EXPECT_THAT(p.output, HasSubstr("mW (measured)"));
  EXPECT_THAT(p.output, Not(HasSubstr("cannot open")));
}

INSTANTIATE_TEST_SUITE_P(
    EveryFixtureBoard, ProbeBoardTest,
    ::testing::Values(
        BoardCase{"orin-agx-jp5", "orin-agx", "12 x 29 x 11 x 3", "MODE_50W",
                  "VDD_GPU_SOC"},
        BoardCase{"orin-agx-jp6", "orin-agx", "12 x 29 x 11 x 3", "PM2_GPU",
                  "VDD_CPU_CV"},
        BoardCase{"xavier-agx-jp4", "xavier-agx", "8 x 29 x 14 x 9",
                  "sigmetrics-a", "GPU"},
        BoardCase{"xavier-agx-jp5", "xavier-agx", "8 x 29 x 14 x 9",
                  "MODE_30W_ALL", "SOC"},
        BoardCase{"xavier-nx-jp5", "xavier-nx", "6 x 25 x 15 x 7", "MODE_15W_6CORE",
                  "VDD_IN"},
        BoardCase{"nano-jp4", "nano", "4 x 15 x 12 x 1", "MAXN", "POM_5V_IN"},
        BoardCase{"orin-nx-jp62", "orin-nx", "8 x 26 x 10 x 4", "MAXN_SUPER",
                  "VDD_IN"},
        BoardCase{"orin-nano-jp62", "orin-nano", "6 x 22 x 8 x 4", "25W",
                  "VDD_SOC"},
        BoardCase{"thor-jp7", "thor", "14 x 4 x 3 x 3", "120W", "VIN"}),
    [](const ::testing::TestParamInfo<BoardCase>& info) {
      std::string name = info.param.tree;
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

// What a Thor owner sees first: the modes that need a reboot, the input
// rail as the total, the memory clock through bwmgr.
TEST(ProbeTest, ThorProbeNamesTheModesThatNeedARebootAndItsInputRail) {
  Probed p = Probe({"--platform", "jetson", "--sysfs-root",
                    std::string(FIXTURES_DIR) + "/sysfs/thor-jp7"});
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_THAT(p.output, HasSubstr("need a reboot"));
  EXPECT_THAT(p.output, HasSubstr("90W 70W"));
  EXPECT_THAT(p.output, HasSubstr("mask 64 (mode 1 (120W)"));
  EXPECT_THAT(p.output, HasSubstr("rail (board total), ina238"));
  EXPECT_THAT(p.output, HasSubstr("/sys/class/devfreq/bwmgr/cur_freq"));
  EXPECT_THAT(p.output, HasSubstr("bwmgr devfreq min/max"));
}

TEST(ProbeTest, HostProbeSaysHowEachKnobIsSetAndWhereThePowerComesFrom) {
  Probed p = Probe({});
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_THAT(p.output, HasSubstr("platform host"));
  EXPECT_THAT(p.output, HasSubstr("cpu_freq_khz"));
  // This machine has no cpufreq and no RAPL: emulated and modeled.
  EXPECT_THAT(p.output, AnyOf(HasSubstr("emulated"),
                                       HasSubstr("cpufreq")));
  EXPECT_THAT(p.output, AnyOf(HasSubstr("(modeled)"),
                                       HasSubstr("(measured)")));
}

TEST(ProbeTest, TwinProbeIsMarkedSimulated) {
  Probed p = Probe({"--platform", "twin", "--device-class", "xavier-agx"});
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_THAT(p.output, HasSubstr("8 x 29 x 14 x 9 = 29232"));
  EXPECT_THAT(p.output, HasSubstr("sigmetrics-n"));
  EXPECT_THAT(p.output, HasSubstr("(simulated)"));
}

TEST(ProbeTest, NotAJetsonIsAClearError) {
  const std::string empty = MakeTempDir("not-a-board");
  Probed p = Probe({"--platform", "jetson", "--sysfs-root", empty});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_THAT(p.output, HasSubstr(empty));
}

TEST(ProbeTest, SysfsRootWithoutJetsonPlatformIsRefusedNotIgnored) {
  // Before, this silently probed the host and printed its figures.
  Probed p = Probe({"--sysfs-root",
                    std::string(FIXTURES_DIR) + "/sysfs/orin-agx-jp5"});
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_THAT(p.output, HasSubstr("--sysfs_root: only the jetson platform"));
  EXPECT_THAT(p.output, Not(HasSubstr("platform host")));
}

}  // namespace
}  // namespace testing
}  // namespace powersweep
