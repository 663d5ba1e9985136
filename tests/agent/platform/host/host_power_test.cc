// RAPL reading on a fake powercap tree and the modeled power, directly and
// through HostPlatform::Sample.
#include <filesystem>
#include <fstream>
#include <string>

#include "agent/platform/host/host_platform.h"
#include "agent/platform/host/power_model.h"
#include "agent/platform/host/rapl.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class FakePowercap {
 public:
  explicit FakePowercap(const std::string& name)
      : root_(testing::TempDir() + "/powercap_" + name) {
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ + "/class/powercap/intel-rapl");
  }
  void Domain(const std::string& dir, const std::string& name, int64_t uj,
              int64_t max_uj) {
    std::string d = Dir() + "/" + dir;
    std::filesystem::create_directories(d);
    std::ofstream(d + "/name") << name << "\n";
    std::ofstream(d + "/max_energy_range_uj") << max_uj << "\n";
    SetEnergy(dir, uj);
  }
  void SetEnergy(const std::string& dir, int64_t uj) {
    std::ofstream(Dir() + "/" + dir + "/energy_uj") << uj << "\n";
  }
  std::string Dir() const { return root_ + "/class/powercap"; }
  const std::string& sys_root() const { return root_; }

 private:
  std::string root_;
};

TEST(RaplTest, PowerIsCounterDifferenceOverTime) {
  FakePowercap pc("basic");
  pc.Domain("intel-rapl:0", "package-0", 1000000, 262143328850);
  pc.Domain("intel-rapl:0:0", "core", 500000, 262143328850);
  pc.Domain("intel-rapl:1", "package-1", 0, 262143328850);
  auto r = RaplReader::Open(pc.Dir());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->domains(), 3u);
  auto first = r->Read(10.0);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->rails.empty());  // nothing to difference yet
  // 0.5 s later: package-0 used 10 J (20 W), core 4 J (8 W), package-1 5 J.
  pc.SetEnergy("intel-rapl:0", 11000000);
  pc.SetEnergy("intel-rapl:0:0", 4500000);
  pc.SetEnergy("intel-rapl:1", 5000000);
  auto p = r->Read(10.5);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->rails.size(), 3u);
  EXPECT_EQ(p->rails[0].name, "package-0");
  EXPECT_NEAR(p->rails[0].power_mw, 20000, 1e-6);
  EXPECT_EQ(p->rails[1].name, "core");
  EXPECT_NEAR(p->rails[1].power_mw, 8000, 1e-6);
  // Total = packages only: the core subdomain is inside package-0.
  EXPECT_NEAR(p->total_mw, 30000, 1e-6);
}

TEST(RaplTest, CounterWrapsAtMaxEnergyRange) {
  EXPECT_EQ(EnergyDeltaUj(900, 100, 1000), 200);
  EXPECT_EQ(EnergyDeltaUj(100, 900, 1000), 800);
  FakePowercap pc("wrap");
  pc.Domain("intel-rapl:0", "package-0", 262143000000, 262143328850);
  auto r = RaplReader::Open(pc.Dir());
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->Read(1.0).ok());
  // 328850 uJ to the wrap, then 671150 uJ: 1 J in 0.1 s = 10 W.
  pc.SetEnergy("intel-rapl:0", 671150);
  auto p = r->Read(1.1);
  ASSERT_TRUE(p.ok());
  EXPECT_NEAR(p->total_mw, 10000, 1e-6);
}

TEST(RaplTest, MissingOrBrokenTreeIsNamed) {
  auto none = RaplReader::Open("/nonexistent/powercap");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("/nonexistent/powercap"));
  FakePowercap pc("broken");
  pc.Domain("intel-rapl:0", "package-0", 5, 100);
  std::filesystem::remove(pc.Dir() + "/intel-rapl:0/max_energy_range_uj");
  auto broken = RaplReader::Open(pc.Dir());
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("max_energy_range_uj"));
}

TEST(PowerModelTest, MonotonicInUtilizationAndFrequency) {
  PowerModelParams params;
  EXPECT_DOUBLE_EQ(ModeledPowerMw({}, params), params.idle_mw);
  double prev = -1;
  for (double u : {0.0, 0.25, 0.5, 1.0}) {
    double p = ModeledPowerMw({{u, 0.6, false}, {u, 0.6, false}}, params);
    EXPECT_GT(p, prev);
    prev = p;
  }
  for (bool emulated : {false, true}) {
    prev = -1;
    for (double s : {0.1, 0.4, 0.7, 1.0}) {
      double p = ModeledPowerMw({{0.8, s, emulated}}, params);
      EXPECT_GT(p, prev);
      prev = p;
    }
  }
  // Stated form: a saturated core at f_max adds exactly P_core_max.
  EXPECT_DOUBLE_EQ(ModeledPowerMw({{1.0, 1.0, false}}, params),
                   params.idle_mw + params.core_max_mw);
  // A core emulated at half speed is busy half the time at f_max and draws
  // what a saturated real core at half speed draws: P_core_max / 8.
  EXPECT_DOUBLE_EQ(ModeledPowerMw({{0.5, 0.5, true}}, params),
                   ModeledPowerMw({{1.0, 0.5, false}}, params));
}

HostPlatformOptions Options(const std::string& sys_root) {
  HostPlatformOptions o;
  o.device_id = "host-9";
  o.allowed_cpus = {0, 1};
  o.proc_root = FIXTURES_DIR "/proc";
  o.sys_root = sys_root;
  o.max_cpu_khz = 2000000;
  return o;
}

v1::TelemetrySample TwoCores(double t, double util) {
  v1::TelemetrySample s;
  s.set_t_s(t);
  s.add_cores()->set_util(util);
  s.add_cores()->set_util(util);
  return s;
}

TEST(HostPlatformPowerTest, WithoutRaplPowerIsModeledFromUtilization) {
  FakePowercap empty("none");  // powercap dir with no domains
  auto p = HostPlatform::Create(Options(empty.sys_root()));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->PowerSource(), "modeled");
  v1::TelemetrySample idle = TwoCores(0.1, 0.0);
  v1::TelemetrySample busy = TwoCores(0.2, 1.0);
  (*p)->Sample({0, 1}, &idle);
  (*p)->Sample({0, 1}, &busy);
  EXPECT_EQ(idle.power_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_DOUBLE_EQ(idle.power_mw(), 3000);
  EXPECT_DOUBLE_EQ(busy.power_mw(), 3000 + 2 * 4000);
  ASSERT_EQ(busy.rails_size(), 1);
  EXPECT_EQ(busy.rails(0).provenance(), v1::PROVENANCE_MODELED);
}

TEST(HostPlatformPowerTest, WithRaplPowerIsMeasuredPerDomain) {
  FakePowercap pc("platform");
  pc.Domain("intel-rapl:0", "package-0", 0, 1000000000);
  auto p = HostPlatform::Create(Options(pc.sys_root()));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->PowerSource(), "rapl (1 domains)");
  v1::TelemetrySample first = TwoCores(0.1, 0.5);
  (*p)->Sample({0, 1}, &first);
  EXPECT_EQ(first.power_mw(), 0);  // first read primes the counter
  pc.SetEnergy("intel-rapl:0", 1500000);  // 1.5 J in 0.1 s
  v1::TelemetrySample second = TwoCores(0.2, 0.5);
  (*p)->Sample({0, 1}, &second);
  EXPECT_NEAR(second.power_mw(), 15000, 1e-6);
  EXPECT_EQ(second.power_provenance(), v1::PROVENANCE_MEASURED);
  ASSERT_EQ(second.rails_size(), 1);
  EXPECT_EQ(second.rails(0).name(), "package-0");
  // A new run (time restarts): primes again instead of a negative interval.
  v1::TelemetrySample next_run = TwoCores(0.1, 0.5);
  (*p)->Sample({0, 1}, &next_run);
  EXPECT_EQ(next_run.power_mw(), 0);
}

TEST(HostPlatformPowerTest, EmulatedFrequencyLowersModeledPowerAndIsLabelled) {
  FakePowercap pc("emulated");
  std::string cg = pc.sys_root() + "/cg";
  std::filesystem::create_directories(cg);
  std::ofstream(cg + "/cgroup.controllers") << "cpu\n";
  std::ofstream(cg + "/cgroup.subtree_control") << "cpu\n";
  HostPlatformOptions o = Options(pc.sys_root());
  o.cgroup_root = cg;
  auto p = HostPlatform::Create(o);
  ASSERT_TRUE(p.ok());
  v1::PowerMode mode;
  mode.set_cpu_cores(2);
  mode.set_cpu_freq_khz(1000000);
  auto applied = (*p)->Apply(mode);
  ASSERT_TRUE(applied.ok()) << applied.status();
  EXPECT_EQ(applied->cpu_freq_provenance(), v1::PROVENANCE_EMULATED);
  EXPECT_EQ(applied->actual().cpu_freq_khz(), 1000000);
  v1::TelemetrySample s = TwoCores(0.1, 0.5);
  (*p)->Sample({0, 1}, &s);
  EXPECT_EQ(s.cores(0).freq_khz(), 1000000);
  EXPECT_EQ(s.power_provenance(), v1::PROVENANCE_MODELED);
  EXPECT_DOUBLE_EQ(s.power_mw(), 3000 + 2 * 0.5 * 4000 * 0.25);
  (*p)->Restore();
  v1::TelemetrySample after = TwoCores(0.2, 0.5);
  (*p)->Sample({0, 1}, &after);
  EXPECT_DOUBLE_EQ(after.power_mw(), 3000 + 2 * 0.5 * 4000);
}

TEST(HostPlatformPowerTest, UnavailableEmulationFailsApplyNamingTheFile) {
  FakePowercap pc("nocg");
  HostPlatformOptions o = Options(pc.sys_root());
  o.cgroup_root = pc.sys_root() + "/no-cgroup";
  auto p = HostPlatform::Create(o);
  ASSERT_TRUE(p.ok());
  v1::PowerMode mode;
  mode.set_cpu_freq_khz(1000000);
  auto applied = (*p)->Apply(mode);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(applied.status().message(),
              HasSubstr(o.cgroup_root + "/cgroup.controllers"));
  EXPECT_EQ((*p)->RunCpus().size(), 2u);  // nothing changed
}

}  // namespace
}  // namespace powersweep
