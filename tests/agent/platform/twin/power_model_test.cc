#include "agent/platform/twin/power_model.h"

#include <numeric>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

PhaseLoad Load(int cores, double cpu, double gpu, double mem) {
  PhaseLoad l;
  l.core_util.assign(cores, cpu);
  l.gpu_util = gpu;
  l.mem_util = mem;
  return l;
}

class PowerModelEveryClassTest : public testing::TestWithParam<std::string> {
 protected:
  const TwinClass& cls() const { return *FindTwinClass(GetParam()); }
};

TEST_P(PowerModelEveryClassTest, TotalIsTheSumOfComponentsAndRailsAddUp) {
  const OperatingPoint op = cls().Max();
  for (double util : {0.0, 0.3, 1.0}) {
    PowerBreakdown p = ModelPower(cls(), {}, op, Load(op.cores, util, util, util));
    const double sum = std::accumulate(p.component_mw.begin(),
                                       p.component_mw.end(), 0.0);
    EXPECT_NEAR(p.total_mw, sum, 1e-9);
    ASSERT_EQ(p.rails_mw.size(), cls().rails.size());
    double rails = 0, total_rail = -1;
    for (size_t i = 0; i < cls().rails.size(); ++i) {
      EXPECT_EQ(p.rails_mw[i].first, cls().rails[i].name);
      EXPECT_GT(p.rails_mw[i].second, 0);
      if (cls().rails[i].is_total) {
        total_rail = p.rails_mw[i].second;
      } else {
        rails += p.rails_mw[i].second;
      }
    }
    if (total_rail >= 0) {
      // A board with an input rail: it is the total, the others are parts.
      EXPECT_NEAR(total_rail, p.total_mw, 1e-9);
      EXPECT_LT(rails, p.total_mw);
    } else {
      EXPECT_NEAR(rails, p.total_mw, 1e-9);  // never double counted
    }
  }
}

TEST_P(PowerModelEveryClassTest, PowerRisesWithLoadAndFrequency) {
  const OperatingPoint max = cls().Max();
  const PhaseLoad idle = Load(max.cores, 0, 0, 0);
  const PhaseLoad busy = Load(max.cores, 1, 1, 1);
  const PowerBreakdown at_idle = ModelPower(cls(), {}, max, idle);
  const PowerBreakdown at_busy = ModelPower(cls(), {}, max, busy);
  EXPECT_GT(at_busy.component_mw[kCpu], at_idle.component_mw[kCpu]);
  EXPECT_GT(at_busy.component_mw[kGpu], at_idle.component_mw[kGpu]);
  EXPECT_GT(at_busy.component_mw[kEmc], at_idle.component_mw[kEmc]);

  OperatingPoint low = max;
  low.cpu_khz = cls().cpu_freqs_khz.front();
  low.gpu_hz = cls().gpu_freqs_hz.front();
  low.mem_hz = cls().mem_freqs_hz.front();
  const PowerBreakdown at_low = ModelPower(cls(), {}, low, busy);
  EXPECT_LT(at_low.component_mw[kCpu], at_busy.component_mw[kCpu]);
  EXPECT_LT(at_low.component_mw[kGpu], at_busy.component_mw[kGpu]);
  EXPECT_LT(at_low.component_mw[kEmc], at_busy.component_mw[kEmc]);

  OperatingPoint fewer = max;
  fewer.cores = 1;
  EXPECT_LT(ModelPower(cls(), {}, fewer, busy).component_mw[kCpu],
            at_busy.component_mw[kCpu]);
}

TEST_P(PowerModelEveryClassTest, StaticPowerFollowsTheInstanceFactor) {
  const OperatingPoint max = cls().Max();
  const PhaseLoad load = Load(max.cores, 0.5, 0.5, 0.5);
  InstanceVariation leaky;
  leaky.static_power = 1.05;
  const PowerBreakdown nominal = ModelPower(cls(), {}, max, load);
  const PowerBreakdown more = ModelPower(cls(), leaky, max, load);
  EXPECT_NEAR(more.component_mw[kSys], 1.05 * nominal.component_mw[kSys], 1e-9);
  EXPECT_GT(more.total_mw, nominal.total_mw);
  EXPECT_LT(more.total_mw, 1.05 * nominal.total_mw);  // dynamic part unchanged
}

INSTANTIATE_TEST_SUITE_P(Classes, PowerModelEveryClassTest,
                         testing::ValuesIn(TwinClassNames()));

TEST(PowerModelTest, OrinRailsAreNamedLikeTheBoard) {
  const TwinClass& orin = *FindTwinClass("orin-agx");
  std::vector<std::string> names;
  for (const RailSpec& r : orin.rails) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV",
                                             "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"}));
}

TEST(PowerModelTest, VoltageRisesWithFrequency) {
  EXPECT_DOUBLE_EQ(NormalizedVoltage(1e9, 1e9, 0.6), 1.0);
  EXPECT_DOUBLE_EQ(NormalizedVoltage(0, 1e9, 0.6), 0.6);
  EXPECT_LT(NormalizedVoltage(0.4e9, 1e9, 0.6), NormalizedVoltage(0.5e9, 1e9, 0.6));
}

}  // namespace
}  // namespace powersweep
