#include "common/power/study_modes.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const StudyMode& Named(const std::vector<StudyMode>& modes,
                       const std::string& name) {
  for (const StudyMode& m : modes) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no study mode " << name;
  static const StudyMode kNone;
  return kNone;
}

ModeSpace SpaceOf(const std::string& cls) {
  return ModeSpace(*FindBuiltInDeviceClass(cls));
}

// Table 3 of the HiPC paper (seed 000), as printed.
TEST(StudyModesTest, HipcOrinTableAsPublished) {
  const std::vector<StudyMode> orin = StudyModesOf("orin-agx");
  const StudyMode& pm1 = Named(orin, "PM1_CPU");
  EXPECT_EQ(pm1.study, kStudyHipc);
  EXPECT_EQ(pm1.cpu_cores, 12);
  EXPECT_DOUBLE_EQ(pm1.cpu_mhz, 1497.6);
  EXPECT_DOUBLE_EQ(pm1.gpu_mhz, 1301);
  EXPECT_DOUBLE_EQ(pm1.mem_mhz, 3200);
  const StudyMode& pm2 = Named(orin, "PM2_GPU");
  EXPECT_DOUBLE_EQ(pm2.cpu_mhz, 2201.6);
  EXPECT_DOUBLE_EQ(pm2.gpu_mhz, 930.75);
  const StudyMode& pm3 = Named(orin, "PM3_MEM");
  EXPECT_DOUBLE_EQ(pm3.gpu_mhz, 1301);
  EXPECT_DOUBLE_EQ(pm3.mem_mhz, 2133);
  const StudyMode& maxn = Named(orin, "hipc-MAXN");
  EXPECT_EQ(maxn.label, "MAXN");
  EXPECT_DOUBLE_EQ(maxn.cpu_mhz, 2201.6);
}

// Table 3 of the SIGMETRICS slides (seed 001): Xavier AGX modes a..n.
TEST(StudyModesTest, SigmetricsXavierModesAToNAsPublished) {
  const std::vector<StudyMode> x = StudyModesOf("xavier-agx");
  std::string labels;
  for (const StudyMode& m : x) labels += m.name.substr(11, 1);
  EXPECT_EQ(labels, "abcdefghijklmn");
  const StudyMode& a = Named(x, "sigmetrics-a");
  EXPECT_EQ(a.cpu_cores, 4);
  EXPECT_DOUBLE_EQ(a.cpu_mhz, 1200);
  EXPECT_DOUBLE_EQ(a.gpu_mhz, 670);
  EXPECT_DOUBLE_EQ(a.mem_mhz, 1333);
  const StudyMode& f = Named(x, "sigmetrics-f");
  EXPECT_EQ(f.cpu_cores, 2);
  EXPECT_DOUBLE_EQ(f.cpu_mhz, 2100);
  const StudyMode& g = Named(x, "sigmetrics-g");
  EXPECT_EQ(g.label, "g (MAXN)");
  EXPECT_DOUBLE_EQ(g.gpu_mhz, 1377);
  EXPECT_DOUBLE_EQ(g.mem_mhz, 2133);
  const StudyMode& k = Named(x, "sigmetrics-k");
  EXPECT_EQ(k.cpu_cores, 4);
  EXPECT_DOUBLE_EQ(k.cpu_mhz, 1036);
  EXPECT_DOUBLE_EQ(k.gpu_mhz, 420);
  EXPECT_DOUBLE_EQ(Named(x, "sigmetrics-h").mem_mhz, 1066);
}

TEST(StudyModesTest, PresetsUseTheClosestTableStepAndSaySo) {
  const PresetMode a =
      ToPreset(Named(StudyModesOf("xavier-agx"), "sigmetrics-a"),
               SpaceOf("xavier-agx"));
  EXPECT_TRUE(a.fixed);
  EXPECT_EQ(a.source, kStudySigmetrics);
  EXPECT_EQ(a.cpu_cores, 4);
  EXPECT_EQ(a.cpu_max_khz, 1190400);
  EXPECT_EQ(a.cpu_min_khz, 1190400);
  EXPECT_EQ(a.gpu_max_hz, 675750000);
  EXPECT_EQ(a.mem_max_hz, 1331200000);
  EXPECT_EQ(a.note,
            "sigmetrics-2023 row a; nearest steps: CPU 1200 -> 1190.4 MHz, "
            "GPU 670 -> 675.75 MHz, EMC 1333 -> 1331.2 MHz");

  const PresetMode pm2 = ToPreset(Named(StudyModesOf("orin-agx"), "PM2_GPU"),
                                  SpaceOf("orin-agx"));
  EXPECT_EQ(pm2.cpu_max_khz, 2201600);  // on the table: not moved
  EXPECT_EQ(pm2.gpu_max_hz, 918000000);
  EXPECT_EQ(pm2.mem_max_hz, 3199000000);
  EXPECT_THAT(pm2.note, HasSubstr("GPU 930.75 -> 918 MHz"));
  EXPECT_THAT(pm2.note, ::testing::Not(HasSubstr("CPU")));
}

TEST(StudyModesTest, EveryStudyPresetIsAValidModeOfItsClass) {
  for (const StudyMode& m : AllStudyModes()) {
    SCOPED_TRACE(m.name);
    const ModeSpace space = SpaceOf(m.device_class);
    const PresetMode p = ToPreset(m, space);
    auto index = space.IndexOf(CustomMode{p.cpu_cores, p.cpu_max_khz,
                                          p.gpu_max_hz, p.mem_max_hz});
    EXPECT_TRUE(index.ok()) << index.status();
  }
}

TEST(StudyModesTest, NamesAreUniqueAndCoverTheOtherClassesRows) {
  std::vector<std::string> names;
  for (const StudyMode& m : AllStudyModes()) names.push_back(m.name);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(names.size(), 4u + 14u + 3u);
  EXPECT_DOUBLE_EQ(Named(StudyModesOf("xavier-nx"), "sigmetrics-nx-15W")
                       .cpu_mhz,
                   1400);
  EXPECT_EQ(Named(StudyModesOf("nano"), "sigmetrics-nano-MAXN").cpu_cores, 4);
  EXPECT_TRUE(StudyModesOf("host").empty());
}

}  // namespace
}  // namespace powersweep
