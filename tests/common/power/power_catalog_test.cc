#include "common/power/power_catalog.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

TEST(PowerCatalogTest, OrinListsNvpmodelPresetsThenTheHipcModes) {
  const PowerCatalog c = PowerCatalog::Default();
  EXPECT_THAT(c.PresetNames("orin-agx"),
              ElementsAre("MAXN", "MODE_15W", "MODE_30W", "MODE_50W",
                          "hipc-MAXN", "PM1_CPU", "PM2_GPU", "PM3_MEM",
                          "sigmetrics-orin-MAXN"));
  EXPECT_TRUE(c.PresetNames("host").empty());
  EXPECT_THAT(c.PresetNames("nano"),
              ElementsAre("MAXN", "5W", "sigmetrics-nano-MAXN"));
}

TEST(PowerCatalogTest, FindPresetResolvesStudyModesToTableValues) {
  const PowerCatalog c = PowerCatalog::Default();
  auto pm1 = c.FindPreset("orin-agx", "PM1_CPU");
  ASSERT_TRUE(pm1.ok()) << pm1.status();
  EXPECT_EQ(pm1->cpu_cores, 12);
  EXPECT_EQ(pm1->cpu_max_khz, 1497600);
  EXPECT_EQ(pm1->gpu_max_hz, 1300500000);
  EXPECT_EQ(pm1->mem_max_hz, 3199000000);
  auto m30 = c.FindPreset("orin-agx", "MODE_30W");
  ASSERT_TRUE(m30.ok());
  EXPECT_EQ(m30->nvpmodel_id, 2);
  EXPECT_FALSE(m30->fixed);
  EXPECT_EQ(m30->cpu_max_khz, 1728000);
}

TEST(PowerCatalogTest, UnknownPresetListsTheKnownOnes) {
  const PowerCatalog c = PowerCatalog::Default();
  auto p = c.FindPreset("nano", "TURBO");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(p.status().message(),
            "unknown preset 'TURBO' for nano (known: MAXN, 5W, "
            "sigmetrics-nano-MAXN)");
  EXPECT_EQ(c.FindPreset("host", "MAXN").status().message(),
            "unknown preset 'MAXN' for host (known: none)");
  EXPECT_EQ(c.FindPreset("xavier-agx", "PM1_CPU").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(c.FindPreset("tx2", "MAXN").status().message(),
            "unknown device class 'tx2' (known: host, nano, orin-agx, "
            "orin-nano, orin-nx, thor, xavier-agx, xavier-nx)");
}

TEST(PowerCatalogTest, SpaceTakesTheDeviceCoresOnlyWhenTheClassHasNone) {
  const PowerCatalog c = PowerCatalog::Default();
  EXPECT_EQ(c.Space("xavier-agx", 3)->Size(), 29232);
  EXPECT_EQ(c.Space("host", 3)->Size(), 3);
  EXPECT_EQ(c.Space("tx2").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace powersweep
