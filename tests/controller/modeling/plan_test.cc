#include "controller/modeling/plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "controller/modeling/model_form.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep::modeling {
namespace {

using ::testing::HasSubstr;

const ModeSpace& Xavier() {
  static const ModeSpace* space =
      new ModeSpace(*FindBuiltInDeviceClass("xavier-agx"));
  return *space;
}

CustomMode MaxCorner() { return CustomMode{8, 2265600, 1377000000, 2133000000}; }
CustomMode MinCorner() { return CustomMode{1, 115200, 114750000, 204000000}; }

void ExpectDistinctModesOfTheSpace(const ProfilingPlan& plan, size_t k) {
  ASSERT_EQ(plan.modes.size(), k);
  ASSERT_EQ(plan.indices.size(), k);
  std::set<int64_t> seen;
  for (size_t i = 0; i < k; ++i) {
    EXPECT_TRUE(Xavier().Check(plan.modes[i]).ok());
    EXPECT_EQ(*Xavier().IndexOf(plan.modes[i]), plan.indices[i]);
    seen.insert(plan.indices[i]);
  }
  EXPECT_EQ(seen.size(), k);
}

TEST(PlanTest, ProposesKDistinctModesStartingFromTheCorners) {
  for (const char* form : {"linear", "reciprocal", "overlap"}) {
    absl::StatusOr<ProfilingPlan> plan =
        PlanProfiling(Xavier(), form, 8, "power_util_x_time");
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectDistinctModesOfTheSpace(*plan, 8);
    EXPECT_EQ(plan->modes[0], MaxCorner()) << form;
    EXPECT_EQ(plan->modes[1], MinCorner()) << form;
    EXPECT_EQ(plan->candidates, 29232);
  }
}

// A first plan of 4 or more modes ends with the middle of the space: the
// corners alone cannot show how power curves between them (without it the
// energy of the calibrated twin's LeNet-5 erred by 8-10%, median, in
// model_fit_twin_test; with it 3-4%).
TEST(PlanTest, EndsAFirstPlanWithTheCenterOfTheSpace) {
  const CustomMode center{4, 1190400, 675750000, 1065600000};
  ASSERT_TRUE(Xavier().Check(center).ok());
  for (const char* form : {"linear", "reciprocal", "overlap"}) {
    for (int k : {4, 8}) {
      const ProfilingPlan plan =
          *PlanProfiling(Xavier(), form, k, "power_util_x_time");
      ExpectDistinctModesOfTheSpace(plan, k);
      EXPECT_EQ(plan.modes.back(), center) << form << " k=" << k;
    }
  }
  // Three modes are the two corners and one D-optimal pick.
  const ProfilingPlan three = *PlanProfiling(Xavier(), "overlap", 3);
  EXPECT_FALSE(three.modes.back() == center);
  // Next modes add to a design that has its center already.
  const ProfilingPlan first = *PlanProfiling(Xavier(), "overlap", 6);
  const ProfilingPlan next =
      *PlanNextModes(Xavier(), "overlap", first.modes, 4);
  for (const CustomMode& m : next.modes) EXPECT_FALSE(m == center);
}

TEST(PlanTest, SpreadsTheOverlapDesignOverEveryKnob) {
  const ProfilingPlan plan = *PlanProfiling(Xavier(), "overlap", 8,
                                            "power_util_x_time");
  std::set<int> cores;
  std::set<int64_t> cpu, gpu, mem;
  for (const CustomMode& m : plan.modes) {
    cores.insert(m.cpu_cores);
    cpu.insert(m.cpu_freq_khz);
    gpu.insert(m.gpu_freq_hz);
    mem.insert(m.mem_freq_hz);
  }
  EXPECT_GE(cores.size(), 2u);
  // The squared terms of the energy form need a clock between the ends.
  EXPECT_GE(cpu.size(), 3u);
  EXPECT_GE(gpu.size(), 3u);
  EXPECT_GE(mem.size(), 2u);
}

// No knob value holds more than half of the planned modes: unbalanced, the
// Xavier AGX plan put 5 of 8 modes at the 204 MHz memory clock and 5 at the
// top CPU clock, and the energy fitted on it erred by 29% (median) on
// LeNet-5 with the calibrated twin.
TEST(PlanTest, NoKnobValueHoldsMoreThanHalfOfThePlan) {
  for (const char* form : {"linear", "reciprocal", "overlap"}) {
    for (int k : {6, 8, 9}) {
      const ProfilingPlan plan =
          *PlanProfiling(Xavier(), form, k, "power_util_x_time");
      std::map<int64_t, int> cores, cpu, gpu, mem;
      for (const CustomMode& m : plan.modes) {
        ++cores[m.cpu_cores];
        ++cpu[m.cpu_freq_khz];
        ++gpu[m.gpu_freq_hz];
        ++mem[m.mem_freq_hz];
      }
      for (const auto* counts : {&cores, &cpu, &gpu, &mem}) {
        for (const auto& [value, n] : *counts) {
          EXPECT_LE(n, (k + 1) / 2) << form << " k=" << k << " value " << value;
        }
      }
    }
  }
}

TEST(PlanTest, NextModesKeepTheBalanceWithTheProfiledOnes) {
  // Four profiled modes at the lowest memory clock: the next four avoid it.
  std::vector<CustomMode> profiled;
  for (int64_t cpu : {115200, 806400, 1497600, 2265600}) {
    profiled.push_back(CustomMode{8, cpu, 1377000000, 204000000});
  }
  const ProfilingPlan next =
      *PlanNextModes(Xavier(), "overlap", profiled, 4, "power_util_x_time");
  for (const CustomMode& m : next.modes) {
    EXPECT_NE(m.mem_freq_hz, 204000000) << ModeToString(m);
  }
}

TEST(PlanTest, IsDeterministic) {
  const ProfilingPlan a = *PlanProfiling(Xavier(), "reciprocal", 6);
  const ProfilingPlan b = *PlanProfiling(Xavier(), "reciprocal", 6);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_DOUBLE_EQ(a.log_det, b.log_det);
}

TEST(PlanTest, NextModesAddToTheProfiledOnes) {
  const ProfilingPlan first = *PlanProfiling(Xavier(), "overlap", 6);
  absl::StatusOr<ProfilingPlan> next =
      PlanNextModes(Xavier(), "overlap", first.modes, 3);
  ASSERT_TRUE(next.ok()) << next.status();
  ExpectDistinctModesOfTheSpace(*next, 3);
  for (int64_t i : next->indices) {
    EXPECT_EQ(std::count(first.indices.begin(), first.indices.end(), i), 0);
  }
  // More modes determine the design better.
  EXPECT_GT(next->log_det, first.log_det);
}

TEST(PlanTest, SubsamplesLargeSpacesDeterministically) {
  DeviceClassSpec big;
  big.name = "big";
  big.cpu_cores = 12;
  for (int i = 1; i <= 60; ++i) big.cpu_freqs_khz.push_back(40000 * i);
  for (int i = 1; i <= 30; ++i) big.gpu_freqs_hz.push_back(50000000LL * i);
  for (int i = 1; i <= 10; ++i) big.mem_freqs_hz.push_back(300000000LL * i);
  const ModeSpace space(big);
  ASSERT_EQ(space.Size(), 216000);
  absl::StatusOr<ProfilingPlan> plan = PlanProfiling(space, "reciprocal", 5);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_LE(plan->candidates, 50002);
  EXPECT_EQ(plan->modes[0], (CustomMode{12, 2400000, 1500000000, 3000000000}));
  EXPECT_EQ(plan->modes[1], (CustomMode{1, 40000, 50000000, 300000000}));
}

TEST(PlanTest, Errors) {
  EXPECT_THAT(PlanProfiling(Xavier(), "overlap", 0).status().message(),
              HasSubstr("must be at least 1, got 0"));
  EXPECT_THAT(PlanProfiling(Xavier(), "cubic", 3).status().message(),
              HasSubstr("unknown time model form \"cubic\""));
  EXPECT_THAT(PlanProfiling(Xavier(), "overlap", 3, "linear").status().message(),
              HasSubstr("unknown energy model form \"linear\""));

  DeviceClassSpec tiny{"tiny", 2, {0}, {1000000, 2000000}, {}, {}};
  const ModeSpace space(tiny);
  EXPECT_THAT(PlanProfiling(space, "reciprocal", 5).status().message(),
              HasSubstr("only 4 candidate modes of tiny are not profiled yet"));
  EXPECT_EQ(PlanProfiling(space, "overlap", 2).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(PlanNextModes(space, "reciprocal", {CustomMode{3, 1000000, 0, 0}}, 1)
                  .status()
                  .message(),
              HasSubstr("profiled mode cores=3 cpu=1000000kHz gpu=0Hz mem=0Hz: "));
  absl::StatusOr<ProfilingPlan> all = PlanProfiling(space, "reciprocal", 4);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(all->modes.size(), 4u);
}

}  // namespace
}  // namespace powersweep::modeling
