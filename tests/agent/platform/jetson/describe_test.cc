// What `powersweep-agent probe` reports about a board's knobs and sensors:
// current values, whether each can be set and, if not, the file that says
// why.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/rig.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::HasSubstr;

const KnobReport* Find(const std::vector<KnobReport>& knobs,
                       const std::string& name) {
  for (const KnobReport& k : knobs) {
    if (k.knob == name) return &k;
  }
  return nullptr;
}

TEST(JetsonDescribeTest, KnobsShowCurrentValuesAndTables) {
  auto rig = MakeRig("orin-agx-jp5");
  const std::vector<KnobReport> knobs = rig->platform->DescribeKnobs();
  const KnobReport* cores = Find(knobs, "cpu_cores");
  ASSERT_NE(cores, nullptr);
  EXPECT_EQ(cores->current, "12 online");
  EXPECT_TRUE(cores->settable);
  const KnobReport* big = Find(knobs, "cpu_freq_khz cpu8-11");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->current, "729600");
  EXPECT_EQ(big->range, "29 steps 115200..2201600");
  const KnobReport* gpu = Find(knobs, "gpu_freq_hz");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->current, "306000000");
  EXPECT_TRUE(gpu->settable);
  EXPECT_TRUE(rig->Writes().empty());
}

// The probe asks the platform (no dynamic_cast): the root, the board's
// identity lines and its named modes (the catalog's only when nullopt).
TEST(JetsonDescribeTest, ProbeDetailsNameTheRootTheBoardAndItsModes) {
  auto rig = MakeRig("orin-agx-jp5");
  const ProbeDetails d = rig->platform->DescribeProbe();
  EXPECT_EQ(d.root, rig->root);
  ASSERT_EQ(d.details.size(), 4u);
  EXPECT_EQ(d.details[0].first, "model");
  EXPECT_EQ(d.details[0].second, rig->platform->board().model);
  EXPECT_EQ(d.details[2].first, "JetPack");
  // No power-gating file in this tree and no nvpmodel status: unknown.
  EXPECT_EQ(d.details[3].first, "GPU power gating");
  EXPECT_THAT(d.details[3].second, ::testing::StartsWith("unknown (no power-gating file"));
  ASSERT_TRUE(d.preset_names.has_value());
  EXPECT_EQ(d.preset_names->size(), rig->platform->presets().modes.size());
  EXPECT_TRUE(rig->Writes().empty());
}

TEST(JetsonDescribeTest, UnwritableKnobNamesTheFileAndIsNotSettable) {
  auto rig = MakeRig("xavier-agx-jp5");
  const std::string emc_rate = "/sys/kernel/debug/bpmp/debug/clk/emc/rate";
  rig->io->FailPath(emc_rate,
                    absl::PermissionDeniedError(absl::StrCat(
                        rig->root, emc_rate, ": not writable (run as root)")));
  const KnobReport* emc = Find(rig->platform->DescribeKnobs(), "mem_freq_hz");
  ASSERT_NE(emc, nullptr);
  EXPECT_FALSE(emc->settable);
  EXPECT_THAT(emc->note, HasSubstr(emc_rate));
  EXPECT_EQ(emc->current, "2133000000");
}

TEST(JetsonDescribeTest, SensorsListEveryRailTheTotalAndTheZones) {
  auto rig = MakeRig("xavier-nx-jp5");
  const std::vector<SensorReport> sensors = rig->platform->DescribeSensors();
  ASSERT_FALSE(sensors.empty());
  EXPECT_EQ(sensors[0].name, "VDD_IN");
  EXPECT_EQ(sensors[0].kind, "rail (board total), ina3221");
  int thermal = 0;
  for (const SensorReport& s : sensors) thermal += s.kind == "thermal";
  EXPECT_GE(thermal, 5);
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
