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

// Orin NX with JetPack 6.2's Super conf: the board runs 40W (mask 240, read
// from the conf's TPC_POWER_GATING file); 10W and 15W gate half the TPCs
// (252), which takes a reboot: refused with the reason, nothing written.
TEST(BoardPresetsTest, AModeWhoseGpuPowerGatingDiffersIsRefusedNotFaked) {
  auto rig = MakeRig("orin-nx-jp62", WithBoardPresets());
  const BoardPresets& p = rig->platform->presets();
  EXPECT_EQ(p.nvpmodel_default_id, 4);
  EXPECT_EQ(p.current_pg_mask, 240);
  EXPECT_THAT(p.current_pg_mask_source,
              HasSubstr("/sys/devices/platform/gpu.0/tpc_pg_mask"));
  v1::PowerMode mode;
  mode.set_preset("10W");
  auto refused = rig->platform->Apply(mode);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("10W needs the GPU power-gating mask 252 and this "
                        "board runs 240"));
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("sudo nvpmodel -m 1"));
  EXPECT_THAT(rig->Writes(), IsEmpty());
  // Same mask: applied by its clocks.
  mode.set_preset("25W");
  auto applied = rig->platform->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 8);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 408000000);
}

// Thor has no public conf: the built-in presets, and the mode nvpmodel
// last set (/var/lib/nvpmodel/status: 120W) gives the current mask.
TEST(BoardPresetsTest, ThorNeedsARebootFor90WAnd70WFrom120W) {
  auto rig = MakeRig("thor-jp7", WithBoardPresets());
  const BoardPresets& p = rig->platform->presets();
  EXPECT_EQ(p.nvpmodel_source, "built-in");
  EXPECT_EQ(p.current_pg_mask, 64);
  EXPECT_THAT(p.current_pg_mask_source, HasSubstr("mode 1 (120W)"));
  for (const char* name : {"90W", "70W"}) {
    v1::PowerMode mode;
    mode.set_preset(name);
    auto refused = rig->platform->Apply(mode);
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition)
        << name;
  }
  v1::PowerMode maxn;
  maxn.set_preset("MAXN");
  auto applied = rig->platform->Apply(maxn);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 14);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 1575000000);
  // The memory clock is pinned through bwmgr's min/max.
  EXPECT_EQ(applied->actual().mem_freq_hz(), 4266000000);
  EXPECT_EQ(FileText(rig->root, "/sys/class/devfreq/bwmgr/min_freq"),
            "4266000000");
  ASSERT_TRUE(rig->platform->RestoreWithStatus().ok());
  EXPECT_EQ(FileText(rig->root, "/sys/class/devfreq/bwmgr/min_freq"),
            "665600000");
  EXPECT_EQ(FileText(rig->root, "/sys/class/devfreq/bwmgr/max_freq"),
            "4266000000");
}

// Without a power-gating file or nvpmodel status the mask is unknown and
// nothing is refused for it (Orin AGX fixtures).
TEST(BoardPresetsTest, AnUnknownMaskRefusesNothing) {
  auto rig = MakeRig("orin-agx-jp5", WithBoardPresets());
  EXPECT_EQ(rig->platform->presets().current_pg_mask, -1);
  v1::PowerMode mode;
  mode.set_preset("MODE_15W");
  EXPECT_TRUE(rig->platform->Apply(mode).ok());
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
