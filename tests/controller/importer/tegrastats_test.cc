#include "controller/importer/tegrastats.h"

#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(FIXTURES_DIR) + "/tegrastats/" + name;
}

std::map<std::string, double> Rails(const v1::TelemetrySample& s) {
  std::map<std::string, double> out;
  for (const auto& r : s.rails()) {
    EXPECT_EQ(r.provenance(), v1::PROVENANCE_MEASURED) << r.name();
    out[r.name()] = r.power_mw();
  }
  return out;
}

std::map<std::string, double> Temps(const v1::TelemetrySample& s) {
  std::map<std::string, double> out;
  for (const auto& t : s.temperatures()) out[t.name()] = t.celsius();
  return out;
}

TEST(TegrastatsTest, OrinAgxJetPack5) {
  auto log = ReadTegrastatsFile(Fixture("orin-agx-jp5.log"), 500);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  const v1::TelemetrySample& s = log->samples[1];
  EXPECT_DOUBLE_EQ(s.t_s(), 0.5);  // undated: --interval_ms apart
  EXPECT_EQ(s.mem_used_bytes(), 2301LL * 1024 * 1024);
  EXPECT_EQ(s.mem_total_bytes(), 30536LL * 1024 * 1024);
  ASSERT_EQ(s.cores_size(), 12);
  EXPECT_DOUBLE_EQ(s.cores(0).util(), 1.0);
  EXPECT_EQ(s.cores(0).freq_khz(), 2201000);
  EXPECT_EQ(s.cores(4).freq_khz(), 0);  // off
  // Mean over the 4 online cores: (100 + 50 + 0 + 10) / 4 %.
  EXPECT_DOUBLE_EQ(s.cpu_util(), 0.4);
  EXPECT_EQ(s.mem_freq_hz(), 3199000000LL);
  EXPECT_DOUBLE_EQ(s.gpu_util(), 0.99);
  EXPECT_EQ(s.gpu_freq_hz(), 1300000000LL);
  auto rails = Rails(s);
  EXPECT_EQ(rails.size(), 4u);  // NC skipped
  EXPECT_EQ(rails["VDD_GPU_SOC"], 9210);  // current, not the average
  EXPECT_EQ(rails["VDDQ_VDD2_1V8AO"], 1204);
  // No total rail on Orin AGX: the sum, VIN_SYS_5V0 included as a rail.
  EXPECT_DOUBLE_EQ(s.power_mw(), 9210 + 4012 + 4870 + 1204);
  EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_MEASURED);
  auto temps = Temps(s);
  EXPECT_DOUBLE_EQ(temps["CPU"], 44.5);
  EXPECT_DOUBLE_EQ(temps["tj"], 44.5);
  EXPECT_EQ(temps.count("CV0"), 0u);  // -256 C: sensor off
  EXPECT_DOUBLE_EQ(temps["GPU"], 43.25);
}

TEST(TegrastatsTest, OrinAgxJetPack6DatedWithPerGpcFrequencies) {
  auto log = ReadTegrastatsFile(Fixture("orin-agx-jp6.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 3u);
  ASSERT_TRUE(log->first_date.has_value());
  EXPECT_EQ(absl::FormatTime("%Y-%m-%d %H:%M:%S", *log->first_date,
                             absl::UTCTimeZone()),
            "2026-11-22 10:00:01");
  // Times from the dates: 0, 1 and 3 s (a missing second stays missing).
  EXPECT_DOUBLE_EQ(log->samples[0].t_s(), 0);
  EXPECT_DOUBLE_EQ(log->samples[1].t_s(), 1);
  EXPECT_DOUBLE_EQ(log->samples[2].t_s(), 3);
  const v1::TelemetrySample& s = log->samples[1];
  EXPECT_DOUBLE_EQ(s.gpu_util(), 0.87);
  EXPECT_EQ(s.gpu_freq_hz(), 1300000000LL);  // highest GPC
  EXPECT_EQ(log->samples[0].gpu_freq_hz(), 0);
  EXPECT_EQ(s.cores_size(), 12);
  auto temps = Temps(s);
  EXPECT_DOUBLE_EQ(temps["cpu"], 53.1);
  EXPECT_DOUBLE_EQ(temps["gpu"], 50.2);
  EXPECT_DOUBLE_EQ(s.power_mw(), 11975 + 2395 + 5645);
  EXPECT_EQ(Rails(s).count("VDDQ_VDD2_1V8AO"), 0u);
}

TEST(TegrastatsTest, XavierAgxJetPack4WithoutUnitsOrFrequencies) {
  auto log = ReadTegrastatsFile(Fixture("xavier-agx-jp4.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  EXPECT_EQ(log->skipped_lines, 1);  // the non-sample line; blank not counted
  EXPECT_THAT(log->first_problem, HasSubstr("line 4"));
  const v1::TelemetrySample& root = log->samples[0];
  EXPECT_EQ(root.cores(0).freq_khz(), 1190000);
  EXPECT_EQ(root.mem_freq_hz(), 0);  // "EMC_FREQ 0%": no frequency
  const v1::TelemetrySample& s = log->samples[1];
  EXPECT_EQ(s.cores(0).freq_khz(), 0);  // "12%": not run as root
  EXPECT_DOUBLE_EQ(s.cores(0).util(), 0.12);
  EXPECT_DOUBLE_EQ(s.cpu_util(), 0.05);
  auto rails = Rails(s);
  ASSERT_EQ(rails.size(), 6u);
  EXPECT_EQ(rails["GPU"], 5120);
  EXPECT_EQ(rails["CPU"], 1236);  // the rail, not the CPU list
  EXPECT_EQ(rails["SYS5V"], 3612);
  // No total rail: the sum of all six.
  EXPECT_DOUBLE_EQ(s.power_mw(), 5120 + 1236 + 3251 + 0 + 929 + 3612);
  auto temps = Temps(s);
  EXPECT_EQ(temps.count("PMIC"), 0u);  // constant 100 C: skipped
  EXPECT_DOUBLE_EQ(temps["thermal"], 31.9);
}

TEST(TegrastatsTest, XavierNxJetPack5TotalIsVddIn) {
  auto log = ReadTegrastatsFile(Fixture("xavier-nx-jp5.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 1u);
  const v1::TelemetrySample& s = log->samples[0];
  EXPECT_EQ(s.gpu_freq_hz(), 114000000LL);
  EXPECT_EQ(s.cores_size(), 6);
  EXPECT_DOUBLE_EQ(s.cpu_util(), 0.025);
  EXPECT_EQ(Rails(s).size(), 3u);
  EXPECT_DOUBLE_EQ(s.power_mw(), 2763);  // not 2763 + 650 + 650
  EXPECT_EQ(Temps(s).count("PMIC"), 0u);  // skipped even when not 100 C
}

TEST(TegrastatsTest, NanoTotalIsPom5vIn) {
  auto log = ReadTegrastatsFile(Fixture("nano-jp4.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  const v1::TelemetrySample& s = log->samples[1];
  EXPECT_EQ(s.mem_used_bytes(), 402LL * 1024 * 1024);
  EXPECT_EQ(s.cores_size(), 4);
  EXPECT_EQ(s.cores(3).freq_khz(), 1479000);
  EXPECT_EQ(s.mem_freq_hz(), 1600000000LL);
  EXPECT_EQ(s.gpu_freq_hz(), 921000000LL);
  EXPECT_DOUBLE_EQ(s.power_mw(), 6912);
  EXPECT_EQ(Rails(s)["POM_5V_CPU"], 2301);
}

// JetPack 7 on Thor: three GPC clocks and no GPU utilisation, the input
// rail VIN is the total, no NVDLA fields, engines as NAME_FREQ @f.
TEST(TegrastatsTest, ThorJetPack7TotalIsVinAndGpuUtilIsNotReported) {
  auto log = ReadTegrastatsFile(Fixture("thor-jp7.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  EXPECT_EQ(log->skipped_lines, 0);
  EXPECT_EQ(log->lines_without_gpu_util, 2);
  const v1::TelemetrySample& idle = log->samples[0];
  EXPECT_EQ(idle.mem_used_bytes(), 105265LL * 1024 * 1024);
  EXPECT_EQ(idle.mem_total_bytes(), 125772LL * 1024 * 1024);
  ASSERT_EQ(idle.cores_size(), 14);
  EXPECT_EQ(idle.cores(13).freq_khz(), 972000);
  EXPECT_DOUBLE_EQ(idle.cores(11).util(), 0.08);
  EXPECT_EQ(idle.mem_freq_hz(), 2750000000LL);
  EXPECT_EQ(idle.gpu_freq_hz(), 314000000LL);
  EXPECT_EQ(idle.gpu_util(), 0);
  auto rails = Rails(idle);
  EXPECT_EQ(rails.size(), 4u);
  EXPECT_EQ(rails["VDD_GPU"], 1962);
  EXPECT_EQ(rails["VDD_CPU_SOC_MSS"], 5887);
  EXPECT_EQ(rails["VIN_SYS_5V0"], 5635);
  // The input rail, not the sum 1962 + 5887 + 5635 + 19780.
  EXPECT_DOUBLE_EQ(idle.power_mw(), 19780);
  auto temps = Temps(idle);
  EXPECT_EQ(temps.size(), 5u);
  EXPECT_DOUBLE_EQ(temps["soc345"], 37.406);
  EXPECT_DOUBLE_EQ(temps["gpu"], 38.875);
  const v1::TelemetrySample& busy = log->samples[1];
  EXPECT_DOUBLE_EQ(busy.t_s(), 1);
  EXPECT_EQ(busy.gpu_freq_hz(), 1575000000LL);
  EXPECT_EQ(busy.mem_freq_hz(), 4266000000LL);
  EXPECT_EQ(busy.cores(0).freq_khz(), 2601000);
  EXPECT_DOUBLE_EQ(busy.power_mw(), 124486);
}

TEST(TegrastatsTest, OrinNanoJetPack62TotalIsVddIn) {
  auto log = ReadTegrastatsFile(Fixture("orin-nano-jp62.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  EXPECT_EQ(log->lines_without_gpu_util, 0);
  const v1::TelemetrySample& s = log->samples[1];
  ASSERT_EQ(s.cores_size(), 6);
  EXPECT_EQ(s.cores(0).freq_khz(), 1497000);
  EXPECT_EQ(s.cores(5).freq_khz(), 729000);
  EXPECT_DOUBLE_EQ(s.cpu_util(), (0.38 + 0.02 + 0.01 + 0 + 0.01 + 0) / 6);
  EXPECT_EQ(s.mem_freq_hz(), 2133000000LL);
  EXPECT_DOUBLE_EQ(s.gpu_util(), 0.99);
  EXPECT_EQ(s.gpu_freq_hz(), 612000000LL);
  EXPECT_DOUBLE_EQ(s.power_mw(), 16321);  // VDD_IN, the current value
  EXPECT_EQ(Rails(s)["VDD_SOC"], 3120);
  EXPECT_DOUBLE_EQ(Temps(s)["soc2"], 55.093);
  EXPECT_EQ(log->samples[0].gpu_freq_hz(), 305000000LL);
}

TEST(TegrastatsTest, OrinNxJetPack62NotRootHasNoEmcAndOfflineCores) {
  auto log = ReadTegrastatsFile(Fixture("orin-nx-jp62.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  const v1::TelemetrySample& idle = log->samples[0];
  EXPECT_EQ(idle.mem_freq_hz(), 0);  // not printed without root
  EXPECT_DOUBLE_EQ(idle.gpu_util(), 0);
  EXPECT_EQ(idle.gpu_freq_hz(), 0);
  EXPECT_DOUBLE_EQ(idle.power_mw(), 4304);
  EXPECT_EQ(Temps(idle).size(), 9u);
  const v1::TelemetrySample& s = log->samples[1];
  ASSERT_EQ(s.cores_size(), 8);
  EXPECT_EQ(s.cores(4).freq_khz(), 0);  // off
  EXPECT_DOUBLE_EQ(s.cpu_util(), 0.0075);  // over the 4 online cores
  EXPECT_DOUBLE_EQ(s.gpu_util(), 0.62);
  EXPECT_EQ(s.gpu_freq_hz(), 612000000LL);
  EXPECT_DOUBLE_EQ(s.power_mw(), 9876);
}

// JetPack 7.2: rails current/average/maximum, temperatures current/maximum.
TEST(TegrastatsTest, JetPack72KeepsTheCurrentRailAndTemperature) {
  auto log = ReadTegrastatsFile(Fixture("orin-nano-jp72.log"), 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 2u);
  const v1::TelemetrySample& idle = log->samples[0];
  EXPECT_DOUBLE_EQ(idle.power_mw(), 3462);
  EXPECT_EQ(Rails(idle)["VDD_CPU_GPU_CV"], 442);
  EXPECT_EQ(Rails(idle)["VDD_SOC"], 1127);
  EXPECT_EQ(idle.mem_freq_hz(), 665000000LL);
  auto temps = Temps(idle);
  EXPECT_EQ(temps.size(), 6u);
  EXPECT_DOUBLE_EQ(temps["cpu"], 45.375);
  EXPECT_DOUBLE_EQ(temps["tj"], 46.562);
  const v1::TelemetrySample& busy = log->samples[1];
  EXPECT_DOUBLE_EQ(busy.t_s(), 2);
  EXPECT_DOUBLE_EQ(busy.power_mw(), 19862);
  EXPECT_EQ(busy.gpu_freq_hz(), 1020000000LL);
  EXPECT_DOUBLE_EQ(busy.gpu_util(), 0.97);

  auto agx = ReadTegrastatsFile(Fixture("orin-agx-jp72.log"), 1000);
  ASSERT_TRUE(agx.ok()) << agx.status();
  ASSERT_EQ(agx->samples.size(), 1u);
  const v1::TelemetrySample& a = agx->samples[0];
  EXPECT_DOUBLE_EQ(a.gpu_util(), 0.12);
  EXPECT_EQ(a.gpu_freq_hz(), 1300000000LL);
  EXPECT_DOUBLE_EQ(a.power_mw(), 5139 + 3268 + 5500);  // no input rail
  EXPECT_DOUBLE_EQ(Temps(a)["soc0"], 49.531);
}

TEST(TegrastatsTest, DatedLinesInOneSecondAdvanceByTheInterval) {
  std::istringstream in(
      "01-02-2025 00:00:00 RAM 1/2MB VDD_IN 1000mW/1000mW\n"
      "01-02-2025 00:00:00 RAM 1/2MB VDD_IN 1000mW/1000mW\n"
      "RAM 1/2MB VDD_IN 1000mW/1000mW\n"
      "01-02-2025 00:00:02 RAM 1/2MB VDD_IN 1000mW/1000mW\n");
  auto log = ParseTegrastatsLog(in, 250);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->samples.size(), 4u);
  EXPECT_DOUBLE_EQ(log->samples[1].t_s(), 0.25);
  EXPECT_DOUBLE_EQ(log->samples[2].t_s(), 0.5);
  EXPECT_DOUBLE_EQ(log->samples[3].t_s(), 2.0);
}

TEST(TegrastatsTest, MalformedFieldsAndEmptyLogsAreReported) {
  auto bad = ParseTegrastatsLine("RAM 12/34MB CPU [5%@x] VDD_IN 1/1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("CPU entry '5%@x'"));
  EXPECT_FALSE(ParseTegrastatsLine("hello world").ok());
  std::istringstream junk("nothing here\n");
  auto log = ParseTegrastatsLog(junk, 1000);
  ASSERT_FALSE(log.ok());
  EXPECT_THAT(log.status().message(), HasSubstr("line 1"));
  std::istringstream one("RAM 1/2MB\n");
  EXPECT_EQ(ParseTegrastatsLog(one, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto missing = ReadTegrastatsFile("/nonexistent/tegrastats.log", 1000);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/"));
}

}  // namespace
}  // namespace powersweep
