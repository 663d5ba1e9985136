#include "controller/cli/mode_tables.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::ListModesResponse OrinModes() {
  v1::ListModesResponse r;
  r.set_device_id("orin-0");
  r.set_device_class("orin-agx");
  r.set_custom_space_size(3828);
  r.set_core_choices(12);
  r.set_cpu_freq_choices(29);
  r.set_gpu_freq_choices(11);
  r.set_mem_freq_choices(3);
  v1::PowerModePreset* maxn = r.add_presets();
  maxn->set_name("MAXN");
  maxn->set_source("nvpmodel");
  maxn->set_nvpmodel_id(0);
  maxn->set_cpu_cores(12);
  maxn->set_cpu_max_khz(-1);
  maxn->set_gpu_max_hz(-1);
  maxn->set_mem_max_hz(-1);
  v1::PowerModePreset* m50 = r.add_presets();
  m50->set_name("MODE_50W");
  m50->set_source("nvpmodel");
  m50->set_nvpmodel_id(3);
  m50->set_cpu_cores(12);
  m50->set_cpu_max_khz(1497600);
  m50->set_gpu_max_hz(816000000);
  m50->set_note("EMC cap not in the reference");
  v1::PowerModePreset* pm2 = r.add_presets();
  pm2->set_name("PM2_GPU");
  pm2->set_source("hipc-2023");
  pm2->set_nvpmodel_id(-1);
  pm2->set_fixed(true);
  pm2->set_cpu_cores(12);
  pm2->set_cpu_max_khz(2201600);
  pm2->set_gpu_max_hz(918000000);
  pm2->set_mem_max_hz(3199000000);
  return r;
}

TEST(ModeTablesTest, KnobsPrintInMhzWithUnsetAndUncapped) {
  EXPECT_EQ(PresetKnobMhz(1190400, 1000), "1190.4");
  EXPECT_EQ(PresetKnobMhz(1728000, 1000), "1728");
  EXPECT_EQ(PresetKnobMhz(930750000, 1000000), "930.75");
  EXPECT_EQ(PresetKnobMhz(1300500000, 1000000), "1300.5");
  EXPECT_EQ(PresetKnobMhz(0, 1000), "-");
  EXPECT_EQ(PresetKnobMhz(-1, 1000000), "max");
}

TEST(ModeTablesTest, TableHasOneAlignedRowPerPreset) {
  EXPECT_EQ(RenderTable(ModesTable(OrinModes()), OutputFormat::kTable),
            "preset    source     id  kind   cores  cpu_mhz  gpu_mhz  emc_mhz"
            "  note\n"
            "MAXN      nvpmodel    0  cap       12  max      max      max\n"
            "MODE_50W  nvpmodel    3  cap       12  1497.6   816      -      "
            "  EMC cap not in the reference\n"
            "PM2_GPU   hipc-2023   -  fixed     12  2201.6   918      3199\n");
}

TEST(ModeTablesTest, PresetsOfAnotherGpuGatingSayTheyNeedAReboot) {
  v1::ListModesResponse r;
  r.set_device_class("thor");
  for (const auto& [name, mask] : std::vector<std::pair<std::string, int>>{
           {"MAXN", 64}, {"120W", 64}, {"90W", 15873}}) {
    v1::PowerModePreset* p = r.add_presets();
    p->set_name(name);
    p->set_source("nvpmodel");
    p->set_gpu_pg_mask(mask);
    p->set_gpu_pg_mask_known(true);
  }
  r.add_presets()->set_name("custom-study");  // no mask: no note
  const Table t = ModesTable(r);
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0].back(),
            "reboot to or from 90W (GPU power-gating mask 64)");
  EXPECT_EQ(t.rows[2].back(),
            "reboot to or from MAXN, 120W (GPU power-gating mask 15873)");
  EXPECT_EQ(t.rows[3].back(), "");
  EXPECT_EQ(CustomSpaceLine(r).rfind("class thor: ", 0), 0u);
}

TEST(ModeTablesTest, JsonKeepsMaxAsAString) {
  const std::string json =
      RenderTable(ModesTable(OrinModes()), OutputFormat::kJson);
  EXPECT_THAT(json, ::testing::HasSubstr(
                        "{\"preset\": \"MAXN\", \"source\": \"nvpmodel\", "
                        "\"id\": 0, \"kind\": \"cap\", \"cores\": 12, "
                        "\"cpu_mhz\": \"max\""));
  EXPECT_THAT(json, ::testing::HasSubstr("\"id\": null"));
}

TEST(ModeTablesTest, FrequencyLinesListEachSettableKnobInMhz) {
  v1::ListModesResponse r = OrinModes();
  for (int64_t khz : {115200, 1497600, 2201600}) r.add_cpu_freqs_khz(khz);
  for (int64_t hz : {306000000, 1300500000}) r.add_gpu_freqs_hz(hz);
  EXPECT_EQ(FrequencyLines(r),
            "CPU MHz: 115.2 1497.6 2201.6\n"
            "GPU MHz: 306 1300.5\n");
  EXPECT_EQ(FrequencyLines(v1::ListModesResponse()), "");
}

TEST(ModeTablesTest, SpaceLineCountsPresetsAndFactors) {
  EXPECT_EQ(CustomSpaceLine(OrinModes()),
            "orin-0 (orin-agx): 2 nvpmodel presets, 1 study modes; custom "
            "modes: 3828 = 12 core counts x 29 CPU x 11 GPU x 3 EMC "
            "frequencies");
  v1::ListModesResponse host;
  host.set_device_id("host-0");
  host.set_device_class("host");
  host.set_custom_space_size(2);
  host.set_core_choices(2);
  EXPECT_EQ(CustomSpaceLine(host),
            "host-0 (host): no presets; custom modes: 2 = 2 core counts "
            "(frequencies not settable)");
}

}  // namespace
}  // namespace powersweep
