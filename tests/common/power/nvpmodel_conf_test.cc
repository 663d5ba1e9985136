#include "common/power/nvpmodel_conf.h"

#include <string>

#include "common/power/preset.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

std::string Fixture(const std::string& name) {
  return std::string(POWERSWEEP_SOURCE_DIR) + "/tests/fixtures/nvpmodel/" +
         name;
}

NvpmodelConf MustParse(const std::string& text) {
  auto conf = ParseNvpmodelConf(text, "test.conf");
  EXPECT_TRUE(conf.ok()) << conf.status();
  return conf.ok() ? *conf : NvpmodelConf{};
}

TEST(NvpmodelConfTest, OrinFixtureYieldsItsFourPresets) {
  auto conf = ReadNvpmodelConf(Fixture("orin-agx.conf"));
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->default_id, 2);
  EXPECT_EQ(conf->fan_default, "cool");
  ASSERT_EQ(conf->modes.size(), 4u);

  const NvpmodelMode* maxn = conf->FindById(0);
  ASSERT_NE(maxn, nullptr);
  EXPECT_EQ(maxn->name, "MAXN");
  EXPECT_EQ(maxn->OnlineCores(), 12);
  EXPECT_EQ(maxn->CpuMaxKhz(), kNoCap);
  EXPECT_EQ(maxn->gpu_max_hz, kNoCap);
  EXPECT_EQ(maxn->emc_max_hz, kNoCap);

  const NvpmodelMode* m15 = conf->FindByName("MODE_15W");
  ASSERT_NE(m15, nullptr);
  EXPECT_EQ(m15->id, 1);
  EXPECT_EQ(m15->OnlineCores(), 4);
  EXPECT_FALSE(m15->cores_online.at(4));
  EXPECT_THAT(m15->cpu_max_khz, ElementsAre(Pair("CPU_A78_0", 1113600)));
  EXPECT_EQ(m15->gpu_max_hz, 408000000);
  EXPECT_EQ(m15->gpu_min_hz, kKnobUnset);
  EXPECT_EQ(m15->emc_max_hz, 2133000000);
  EXPECT_EQ(m15->tpc_pg_mask, 248);

  const NvpmodelMode* m30 = conf->FindByName("MODE_30W");
  ASSERT_NE(m30, nullptr);
  EXPECT_EQ(m30->id, 2);
  EXPECT_EQ(m30->OnlineCores(), 8);
  EXPECT_THAT(m30->cpu_max_khz, ElementsAre(Pair("CPU_A78_0", 1728000),
                                            Pair("CPU_A78_1", 1728000)));
  EXPECT_EQ(m30->gpu_max_hz, 612000000);
  EXPECT_EQ(m30->emc_max_hz, kNoCap);
  EXPECT_EQ(m30->tpc_pg_mask, 240);

  const NvpmodelMode* m50 = conf->FindByName("MODE_50W");
  ASSERT_NE(m50, nullptr);
  EXPECT_EQ(m50->id, 3);
  EXPECT_EQ(m50->OnlineCores(), 12);
  EXPECT_EQ(m50->CpuMaxKhz(), 1497600);
  EXPECT_EQ(m50->gpu_max_hz, 816000000);

  // PARAM blocks map names to sysfs paths, spacing variants included.
  ASSERT_FALSE(conf->params.empty());
  EXPECT_EQ(conf->params[0].name, "CPU_ONLINE");
  EXPECT_EQ(conf->params[0].type, "FILE");
  EXPECT_EQ(conf->params[0].paths.at("CORE_11"),
            "/sys/devices/system/cpu/cpu11/online");
}

TEST(NvpmodelConfTest, XavierFixtureYieldsItsEightPresets) {
  auto conf = ReadNvpmodelConf(Fixture("xavier-agx.conf"));
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->default_id, 2);
  std::vector<std::string> names;
  for (const PresetMode& p : conf->Presets()) names.push_back(p.name);
  EXPECT_THAT(names, ElementsAre("MAXN", "MODE_10W", "MODE_15W",
                                 "MODE_30W_ALL", "MODE_30W_6CORE",
                                 "MODE_30W_4CORE", "MODE_30W_2CORE",
                                 "MODE_15W_DESKTOP"));

  const NvpmodelMode* maxn = conf->FindByName("MAXN");
  ASSERT_NE(maxn, nullptr);
  EXPECT_EQ(maxn->emc_max_hz, kNoCap);  // "EMC MAX_FREQ 0" in Xavier files
  EXPECT_EQ(maxn->OnlineCores(), 8);

  const PresetMode m10 = conf->FindByName("MODE_10W")->ToPreset();
  EXPECT_EQ(m10.nvpmodel_id, 1);
  EXPECT_EQ(m10.cpu_cores, 2);
  EXPECT_EQ(m10.cpu_min_khz, 1200000);
  EXPECT_EQ(m10.cpu_max_khz, 1200000);
  EXPECT_EQ(m10.gpu_min_hz, 318750000);
  EXPECT_EQ(m10.gpu_max_hz, 520000000);
  EXPECT_EQ(m10.mem_max_hz, 1065600000);
  EXPECT_EQ(conf->FindByName("MODE_10W")->tpc_pg_mask, 5);

  const PresetMode m15 = conf->FindByName("MODE_15W")->ToPreset();
  EXPECT_EQ(m15.cpu_cores, 4);
  EXPECT_EQ(m15.cpu_max_khz, 1200000);
  EXPECT_EQ(m15.gpu_min_hz, 318750000);
  EXPECT_EQ(m15.gpu_max_hz, 670000000);
  EXPECT_EQ(m15.mem_max_hz, 1331200000);

  EXPECT_EQ(conf->FindByName("MODE_30W_6CORE")->OnlineCores(), 6);
  EXPECT_EQ(conf->FindByName("MODE_30W_2CORE")->OnlineCores(), 2);
}

// Every value the built-in catalog states for a preset is what the
// fixture (the real file format) gives; knobs the catalog leaves unset are
// not compared.
TEST(NvpmodelConfTest, BuiltInPresetsAgreeWithTheFixtureFiles) {
  for (const char* cls : {"orin-agx", "xavier-agx"}) {
    auto conf = ReadNvpmodelConf(Fixture(std::string(cls) + ".conf"));
    ASSERT_TRUE(conf.ok()) << conf.status();
    const std::vector<PresetMode> built_in = BuiltInNvpmodelPresets(cls);
    ASSERT_EQ(built_in.size(), conf->modes.size()) << cls;
    for (const PresetMode& want : built_in) {
      SCOPED_TRACE(std::string(cls) + " " + want.name);
      const NvpmodelMode* m = conf->FindByName(want.name);
      ASSERT_NE(m, nullptr);
      const PresetMode got = m->ToPreset();
      EXPECT_EQ(got.nvpmodel_id, want.nvpmodel_id);
      if (want.cpu_cores) {
        EXPECT_EQ(got.cpu_cores, want.cpu_cores);
      }
      if (want.cpu_max_khz) {
        EXPECT_EQ(got.cpu_max_khz, want.cpu_max_khz);
      }
      if (want.cpu_min_khz) {
        EXPECT_EQ(got.cpu_min_khz, want.cpu_min_khz);
      }
      if (want.gpu_max_hz) {
        EXPECT_EQ(got.gpu_max_hz, want.gpu_max_hz);
      }
      if (want.gpu_min_hz) {
        EXPECT_EQ(got.gpu_min_hz, want.gpu_min_hz);
      }
      if (want.mem_max_hz) {
        EXPECT_EQ(got.mem_max_hz, want.mem_max_hz);
      }
    }
  }
}

TEST(NvpmodelConfTest, TagsParseWithAnySpacing) {
  for (const char* tag :
       {"< POWER_MODEL ID=1 NAME=MODE_15W >",
        "<POWER_MODEL ID=1 NAME=MODE_15W>",
        "<  POWER_MODEL   ID = 1\tNAME= MODE_15W  >",
        "   <POWER_MODEL ID=1 NAME=MODE_15W >   "}) {
    SCOPED_TRACE(tag);
    const NvpmodelConf conf = MustParse(
        std::string(tag) + "\nGPU   MAX_FREQ\t408000000  # trailing comment\n"
                           "<PM_CONFIG DEFAULT=1>\n");
    ASSERT_EQ(conf.modes.size(), 1u);
    EXPECT_EQ(conf.modes[0].id, 1);
    EXPECT_EQ(conf.modes[0].name, "MODE_15W");
    EXPECT_EQ(conf.modes[0].gpu_max_hz, 408000000);
    EXPECT_EQ(conf.default_id, 1);
  }
}

TEST(NvpmodelConfTest, MinusOneAndPrintedMaxAndZeroMeanNoCap) {
  const NvpmodelConf conf = MustParse(
      "< POWER_MODEL ID=0 NAME=A >\n"
      "CPU_A57 MAX_FREQ -1\n"
      "GPU MAX_FREQ 2147483647\n"
      "GPU MIN_FREQ 0\n"
      "EMC MAX_FREQ 0\n"
      "< POWER_MODEL ID=1 NAME=B >\n"
      "EMC MAX_FREQ 1600000000\n"
      "< PM_CONFIG DEFAULT=0 >\n");
  const NvpmodelMode& a = conf.modes[0];
  EXPECT_EQ(a.CpuMaxKhz(), kNoCap);
  EXPECT_EQ(a.gpu_max_hz, kNoCap);
  EXPECT_EQ(a.gpu_min_hz, kNoCap);
  EXPECT_EQ(a.emc_max_hz, kNoCap);
  EXPECT_EQ(a.OnlineCores(), 0);  // no CPU_ONLINE lines: cores not given
  EXPECT_EQ(conf.modes[1].emc_max_hz, 1600000000);
  EXPECT_EQ(conf.modes[1].gpu_max_hz, kKnobUnset);
}

TEST(NvpmodelConfTest, UnknownParametersAndTagsAreKeptOrSkipped) {
  const NvpmodelConf conf = MustParse(
      "< VENDOR_EXTRA X=1 >\nanything here is ignored\n"
      "< POWER_MODEL ID=0 NAME=A >\nDLA_CORE MAX_FREQ 1395200000\n"
      "< PM_CONFIG DEFAULT=0 >\n");
  ASSERT_EQ(conf.modes[0].settings.size(), 1u);
  EXPECT_EQ(conf.modes[0].settings[0].param, "DLA_CORE");
  EXPECT_EQ(conf.modes[0].settings[0].line, 4);
}

absl::Status ParseError(const std::string& text) {
  return ParseNvpmodelConf(text, "bad.conf").status();
}

TEST(NvpmodelConfTest, MalformedLinesNameTheLine) {
  const std::string head = "# comment\n< POWER_MODEL ID=0 NAME=A >\n";
  const std::string tail = "< PM_CONFIG DEFAULT=0 >\n";
  absl::Status st = ParseError(head + "GPU MAX_FREQ\n" + tail);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "bad.conf:3: expected 'PARAM ARG VALUE' in POWER_MODEL A, got "
            "'GPU MAX_FREQ'");
  EXPECT_EQ(ParseError(head + "GPU MAX_FREQ fast\n" + tail).message(),
            "bad.conf:3: GPU MAX_FREQ: 'fast' is not an integer");
  EXPECT_EQ(ParseError(head + "CPU_ONLINE CORE_x 1\n" + tail).message(),
            "bad.conf:3: CPU_ONLINE: expected CORE_<n>, got 'CORE_x'");
  EXPECT_EQ(ParseError(head + "CPU_ONLINE CORE_1 2\n" + tail).message(),
            "bad.conf:3: CPU_ONLINE CORE_1: expected 0 or 1, got '2'");
  EXPECT_EQ(ParseError("\n< POWER_MODEL ID=0 NAME=A\n" + tail).message(),
            "bad.conf:2: tag without a closing '>'");
  EXPECT_EQ(ParseError("GPU MAX_FREQ 1\n").message(),
            "bad.conf:1: 'GPU MAX_FREQ 1' is outside any block");
  EXPECT_EQ(ParseError(head + "< POWER_MODEL ID=0 NAME=B >\n" + tail)
                .message(),
            "bad.conf:3: POWER_MODEL ID=0 already used by A at line 2");
  EXPECT_EQ(ParseError("< POWER_MODEL ID=x NAME=A >\n").message(),
            "bad.conf:1: POWER_MODEL needs ID=<non-negative integer>, got "
            "'x'");
}

TEST(NvpmodelConfTest, PmConfigIsMandatoryAndMustNameAMode) {
  EXPECT_EQ(ParseError("< POWER_MODEL ID=0 NAME=A >\n").message(),
            "bad.conf: no < PM_CONFIG DEFAULT=n > (mandatory)");
  EXPECT_EQ(ParseError("< POWER_MODEL ID=0 NAME=A >\n\n< PM_CONFIG "
                       "DEFAULT=4 >\n")
                .message(),
            "bad.conf:3: PM_CONFIG DEFAULT=4 names no POWER_MODEL");
  EXPECT_EQ(ParseError("# empty\n").message(),
            "bad.conf: no POWER_MODEL block");
}

TEST(NvpmodelConfTest, MissingFileIsNotFoundNamingThePath) {
  auto conf = ReadNvpmodelConf("/nonexistent/nvpmodel.conf");
  ASSERT_FALSE(conf.ok());
  EXPECT_EQ(conf.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(conf.status().message()),
              ::testing::HasSubstr("/nonexistent/nvpmodel.conf"));
}

}  // namespace
}  // namespace powersweep
