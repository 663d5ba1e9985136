#include "agent/platform/twin/twin_platform.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::unique_ptr<TwinPlatform> Make(const std::string& cls, int64_t instance = 3,
                                   uint64_t seed = 9) {
  TwinPlatformOptions o;
  o.device_class = cls;
  o.instance = instance;
  o.seed = seed;
  auto p = TwinPlatform::Create(o);
  EXPECT_TRUE(p.ok()) << p.status();
  return std::move(*p);
}

TEST(TwinPlatformTest, IdentifiesAsATwinOfItsClassAndInstance) {
  auto twin = Make("orin-agx", 3);
  const v1::DeviceIdentity id = twin->Identity();
  EXPECT_EQ(id.device_id(), "orin-agx-twin-3");
  EXPECT_EQ(id.platform(), "twin");
  EXPECT_EQ(id.device_class(), "orin-agx");
  EXPECT_NE(id.serial(), Make("orin-agx", 4)->Identity().serial());

  TwinPlatformOptions o;
  o.device_class = "nano";
  o.device_id = "lab-nano";
  EXPECT_EQ((*TwinPlatform::Create(o))->Identity().device_id(), "lab-nano");
}

TEST(TwinPlatformTest, RejectsUnknownClassAndNegativeInstance) {
  TwinPlatformOptions o;
  o.device_class = "tx2";
  auto bad = TwinPlatform::Create(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--device_class"), std::string::npos);
  o.device_class = "nano";
  o.instance = -1;
  bad = TwinPlatform::Create(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--instance"), std::string::npos);
}

TEST(TwinPlatformTest, CapabilitiesCarryTheClassTables) {
  auto twin = Make("xavier-agx");
  const v1::DeviceCapabilities caps = twin->Capabilities();
  EXPECT_EQ(caps.cpu_cores(), 8);
  EXPECT_EQ(caps.cpu_freqs_khz_size(), 29);
  EXPECT_EQ(caps.gpu_freqs_hz_size(), 14);
  EXPECT_EQ(caps.mem_freqs_hz_size(), 9);  // 8 x 29 x 14 x 9 = 29,232 modes
  EXPECT_GT(caps.memory_bytes(), 0);
  // Runtimes, models and data sets are the twin agent's catalog.
  EXPECT_EQ(caps.runtimes_size(), 0);
  EXPECT_EQ(caps.models_size(), 0);
  EXPECT_EQ(caps.datasets_size(), 0);
}

TEST(TwinPlatformTest, ApplyReportsTheModeAsSetAndZeroKnobsAsTheClassMaximum) {
  auto twin = Make("orin-agx");
  v1::PowerMode mode;
  mode.set_cpu_cores(4);
  mode.set_gpu_freq_hz(612000000);
  auto applied = twin->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 4);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 612000000);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 2201600);
  EXPECT_EQ(applied->actual().mem_freq_hz(), 3199000000);
  EXPECT_EQ(applied->cores_provenance(), v1::PROVENANCE_SIMULATED);
  EXPECT_EQ(applied->cpu_freq_provenance(), v1::PROVENANCE_SIMULATED);
  EXPECT_EQ(twin->RunCpus(), (std::vector<int>{0, 1, 2, 3}));

  twin->Restore();
  EXPECT_EQ(twin->RunCpus().size(), 12u);
  EXPECT_EQ(twin->Current().gpu_hz, 1300500000);
}

TEST(TwinPlatformTest, ApplyRejectsValuesOutsideTheTablesAndKeepsTheMode) {
  auto twin = Make("xavier-agx");
  v1::PowerMode good;
  good.set_cpu_cores(2);
  ASSERT_TRUE(twin->Apply(good).ok());
  v1::PowerMode bad;
  bad.set_gpu_freq_hz(500000000);
  bad.set_cpu_cores(9);
  auto applied = twin->Apply(bad);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(applied.status().message());
  EXPECT_NE(msg.find("gpu_freq_hz: 500000000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("420750000, 522750000"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cpu_cores: 9"), std::string::npos) << msg;
  EXPECT_EQ(twin->Current().cores, 2);  // unchanged
}

TEST(TwinPlatformTest, PresetsComeFromTheSharedCatalogWithCapsOnTableSteps) {
  auto orin = Make("orin-agx");
  v1::PowerMode mode;
  mode.set_preset("MODE_15W");
  auto applied = orin->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_cores(), 4);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1113600);
  EXPECT_EQ(applied->actual().gpu_freq_hz(), 408000000);
  EXPECT_EQ(applied->actual().preset(), "MODE_15W");

  auto xavier = Make("xavier-agx");
  mode.set_preset("MODE_10W");  // CPU cap 1200000 is between table steps
  applied = xavier->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1190400);
  EXPECT_EQ(applied->actual().cpu_cores(), 2);

  mode.set_preset("TURBO");
  EXPECT_FALSE(xavier->Apply(mode).ok());
}

TEST(TwinPlatformTest, SamplesAreSimulatedAndFollowTheLoad) {
  auto twin = Make("xavier-nx");
  v1::TelemetrySample idle;
  twin->Sample({0, 1}, &idle);
  EXPECT_EQ(idle.cores_size(), 6);
  EXPECT_EQ(idle.power_provenance(), v1::PROVENANCE_SIMULATED);
  ASSERT_EQ(idle.rails_size(), 3);
  EXPECT_EQ(idle.rails(0).name(), "VDD_IN");
  EXPECT_DOUBLE_EQ(idle.rails(0).power_mw(), idle.power_mw());
  for (const auto& rail : idle.rails()) {
    EXPECT_EQ(rail.provenance(), v1::PROVENANCE_SIMULATED);
  }
  EXPECT_EQ(idle.gpu_freq_hz(), 1109250000);
  EXPECT_EQ(idle.cores(0).freq_khz(), 1907200);
  // The EMC clock it simulates is recorded too (telemetry.mem_freq_hz).
  EXPECT_GT(idle.mem_freq_hz(), 0);
  EXPECT_EQ(idle.mem_freq_hz(), twin->Current().mem_hz);

  PhaseLoad busy;
  busy.core_util.assign(6, 1.0);
  busy.gpu_util = 1;
  busy.mem_util = 1;
  twin->SetLoad(busy);
  v1::TelemetrySample loaded;
  twin->Sample({}, &loaded);
  EXPECT_GT(loaded.power_mw(), idle.power_mw() + 1000);
  EXPECT_DOUBLE_EQ(loaded.gpu_util(), 1.0);
  EXPECT_DOUBLE_EQ(loaded.cpu_util(), 1.0);
}

}  // namespace
}  // namespace powersweep
