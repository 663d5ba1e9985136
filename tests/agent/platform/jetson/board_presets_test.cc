// Preset names on a discovered board: the board's nvpmodel.conf first, the
// built-in presets when it has none, the study modes of its class after.
#include "agent/platform/jetson/board_presets.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Names(const BoardPresets& p) {
  std::vector<std::string> out;
  for (const PresetMode& m : p.modes) out.push_back(m.name);
  return out;
}

JetsonPlatformOptions WithBoardPresets() {
  JetsonPlatformOptions opts;
  opts.board_presets = true;
  return opts;
}

TEST(BoardPresetsTest, OrinUsesItsNvpmodelConfThenTheHipcModes) {
  auto rig = MakeRig("orin-agx-jp5", WithBoardPresets());
  const BoardPresets& p = rig->platform->presets();
  EXPECT_THAT(p.nvpmodel_source, HasSubstr("/etc/nvpmodel.conf"));
  EXPECT_EQ(p.nvpmodel_default_id, 2);
  // The run's identity names the conf by its content, and the module.
  EXPECT_THAT(p.nvpmodel_fingerprint,
              ::testing::MatchesRegex("/etc/nvpmodel.conf fnv1a64:[0-9a-f]{16}"));
  EXPECT_EQ(rig->platform->Identity().nvpmodel(), p.nvpmodel_fingerprint);
  EXPECT_THAT(rig->platform->Identity().module(), HasSubstr("Orin"));
  EXPECT_THAT(p.warnings, IsEmpty());
  const std::vector<std::string> names = Names(p);
  ASSERT_GE(names.size(), 8u);
  EXPECT_EQ(names[0], "MAXN");
  EXPECT_EQ(names[3], "MODE_50W");
  EXPECT_THAT(names, Contains("PM1_CPU"));
  EXPECT_THAT(names, Contains("PM3_MEM"));
}

TEST(BoardPresetsTest, ANvpmodelPresetIsAppliedWithItsCapsAndUncappedEmc) {
  auto rig = MakeRig("orin-agx-jp5", WithBoardPresets());
  v1::PowerMode mode;
  mode.set_preset("MODE_30W");
  auto applied = rig->platform->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 8);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1728000);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 612000000);
  // EMC MAX_FREQ -1: no cap, the highest rate of the board's table.
  const std::vector<int64_t>& emc = rig->platform->board().emc.rates_hz;
  ASSERT_FALSE(emc.empty());
  EXPECT_EQ(applied->actual().mem_freq_hz(), emc.back());
  EXPECT_THAT(rig->File("/sys/devices/system/cpu/cpu8/online"),
              HasSubstr("0"));
}

TEST(BoardPresetsTest, AStudyModeIsAppliedByName) {
  auto rig = MakeRig("orin-agx-jp6", WithBoardPresets());
  v1::PowerMode mode;
  mode.set_preset("PM1_CPU");
  auto applied = rig->platform->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().preset(), "PM1_CPU");
  EXPECT_GT(applied->actual().cpu_freq_khz(), 0);
}

TEST(BoardPresetsTest, WithoutAConfTheBuiltInPresetsAndSigmetricsModesServe) {
  auto rig = MakeRig("xavier-agx-jp4", WithBoardPresets());
  const BoardPresets& p = rig->platform->presets();
  EXPECT_EQ(p.nvpmodel_source, "built-in");
  EXPECT_EQ(rig->platform->Identity().nvpmodel(), "built-in");
  EXPECT_THAT(Names(p), Contains("MODE_15W"));
  EXPECT_THAT(Names(p), Contains("sigmetrics-a"));
  v1::PowerMode mode;
  mode.set_preset("MODE_15W");
  auto applied = rig->platform->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 4);
  EXPECT_EQ(applied->actual().mem_freq_hz(), 1331200000);
}

TEST(BoardPresetsTest, AnUnknownPresetNamesTheKnownOnesAndWritesNothing) {
  auto rig = MakeRig("xavier-nx-jp5", WithBoardPresets());
  v1::PowerMode mode;
  mode.set_preset("TURBO");
  auto applied = rig->platform->Apply(mode);
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(applied.status().message()),
              HasSubstr("preset: \"TURBO\": no such mode on this xavier-nx "
                        "(known: "));
  EXPECT_THAT(rig->Writes(), IsEmpty());
}

TEST(BoardPresetsTest, ABrokenConfFallsBackToTheBuiltInPresetsWithAWarning) {
  const std::string root = CopyFixture("xavier-agx-jp5");
  std::filesystem::remove(root + "/etc/nvpmodel.conf");
  std::ofstream(root + "/etc/nvpmodel.conf") << "< POWER_MODEL ID=x >\n";
  auto rig = MakeRig("xavier-agx-jp5", WithBoardPresets(), root);
  const BoardPresets& p = rig->platform->presets();
  EXPECT_EQ(p.nvpmodel_source, "built-in");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_THAT(p.warnings[0], HasSubstr("nvpmodel.conf:1"));
  EXPECT_THAT(Names(p), Contains("MODE_30W_ALL"));
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
