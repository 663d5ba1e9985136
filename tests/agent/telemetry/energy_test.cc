#include "agent/telemetry/energy.h"

#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::TelemetrySample Sample(double t, double mw,
                           v1::Provenance p = v1::PROVENANCE_MEASURED) {
  v1::TelemetrySample s;
  s.set_t_s(t);
  s.set_power_mw(mw);
  s.set_power_provenance(p);
  return s;
}

// Record of a minibatch ending at `end` (workload clock) with the given
// stall and compute; e2e covers 0.1 s of record writing before the stall.
v1::MinibatchRecord Record(double end, double stall, double compute) {
  v1::MinibatchRecord r;
  r.set_e2e_s(stall + compute + 0.1);
  r.set_t_start_s(end - r.e2e_s());
  r.set_stall_s(stall);
  r.set_compute_s(compute);
  return r;
}

TEST(EnergyTest, ConstantPowerIsPowerTimesSpan) {
  // 5 W from t = 1 s to t = 11 s, sampled irregularly.
  std::vector<v1::TelemetrySample> s;
  for (double t : {1.0, 1.3, 2.0, 4.7, 4.71, 8.0, 11.0}) {
    s.push_back(Sample(t, 5000));
  }
  EnergyResult r = ComputeEnergy(s, {}, 0);
  EXPECT_NEAR(r.energy_j, 50.0, 1e-9);
  EXPECT_NEAR(r.MeanPowerMw(), 5000.0, 1e-9);
  EXPECT_EQ(r.samples, 7);
  EXPECT_EQ(r.provenance, v1::PROVENANCE_MEASURED);
}

TEST(EnergyTest, RampIsExactUnderIrregularSampling) {
  // p(t) = 1 W + 1 W/s * t: integral over [0, T] = T + T^2 / 2 J.
  std::vector<v1::TelemetrySample> s;
  for (double t : {0.0, 0.01, 0.5, 0.51, 3.0, 7.25, 10.0}) {
    s.push_back(Sample(t, 1000 + 1000 * t));
  }
  EnergyResult r = ComputeEnergy(s, {}, 0);
  EXPECT_NEAR(r.energy_j, 60.0, 1e-9);
  EXPECT_NEAR(r.MeanPowerMw(), 6000.0, 1e-9);
}

TEST(EnergyTest, TimeWeightedNotAverageOfReadings) {
  // Nine readings of 1 W in the first second, then one of 10 W at t = 10 s:
  // the average of readings would be 1.9 W; the trace is 1 W on [0, 0.8]
  // (readings every 0.1 s) then a ramp from 1 W to 10 W over 9.2 s.
  std::vector<v1::TelemetrySample> s;
  for (int i = 0; i <= 8; ++i) s.push_back(Sample(0.1 * i, 1000));
  s.push_back(Sample(10.0, 10000));
  EnergyResult r = ComputeEnergy(s, {}, 0);
  EXPECT_NEAR(r.energy_j, 0.8 * 1.0 + 9.2 * 5.5, 1e-9);
}

TEST(EnergyTest, SamplesWithoutReadingAreBridgedAndOrderDoesNotMatter) {
  std::vector<v1::TelemetrySample> s = {Sample(4, 3000), Sample(0, 1000),
                                        Sample(2, 0), Sample(2, 2000)};
  EnergyResult r = ComputeEnergy(s, {}, 0);
  // 1 -> 2 W over 2 s (3 J), 2 -> 3 W over 2 s (5 J).
  EXPECT_NEAR(r.energy_j, 8.0, 1e-12);
  EXPECT_EQ(r.samples, 3);
}

TEST(EnergyTest, NoEnergyFromFewerThanTwoReadings) {
  EXPECT_EQ(ComputeEnergy({}, {}, 0).energy_j, 0);
  EXPECT_EQ(ComputeEnergy({Sample(1, 4000)}, {}, 0).energy_j, 0);
  EXPECT_EQ(ComputeEnergy({}, {}, 0).provenance, v1::PROVENANCE_UNSPECIFIED);
}

TEST(EnergyTest, ProvenanceIsTheLeastDirectOfTheSamplesUsed) {
  std::vector<v1::TelemetrySample> s = {
      Sample(0, 1000, v1::PROVENANCE_MEASURED),
      Sample(1, 1000, v1::PROVENANCE_MODELED),
      Sample(2, 1000, v1::PROVENANCE_EMULATED),
      Sample(3, 0, v1::PROVENANCE_SIMULATED)};  // no reading: not used
  EXPECT_EQ(ComputeEnergy(s, {}, 0).provenance, v1::PROVENANCE_MODELED);
}

TEST(EnergyTest, IntegralOverSubIntervalInterpolates) {
  std::vector<PowerPoint> ramp = {{0, 0}, {10, 10000}};
  EXPECT_NEAR(IntegrateJoules(ramp, 2, 4), 6.0, 1e-12);   // (2+4)/2 * 2
  EXPECT_NEAR(IntegrateJoules(ramp, -5, 1), 0.5, 1e-12);  // clipped at 0
  EXPECT_NEAR(IntegrateJoules(ramp, 9, 20), 9.5, 1e-12);  // clipped at 10
  EXPECT_EQ(IntegrateJoules(ramp, 4, 2), 0);
  // Overlapping intervals count once.
  EXPECT_NEAR(IntegrateJoulesOver(ramp, {{2, 4}, {3, 5}, {8, 8}}), 10.5,
              1e-12);
}

TEST(EnergyTest, PhaseSplitOnRamp) {
  // p(t) = 1 W + 1 W/s * t sampled every 0.25 s on [0, 6].
  std::vector<v1::TelemetrySample> s;
  for (int i = 0; i <= 24; ++i) s.push_back(Sample(0.25 * i, 1000 + 250.0 * i));
  // Workload clock is 0.5 s behind the agent's: minibatches end at 2.5 and
  // 4.5 on the workload clock = 3 and 5 on the agent's, each 1 s stall then
  // 1 s compute: stall [1,2] and [3,4], compute [2,3] and [4,5].
  std::vector<v1::MinibatchRecord> mb = {Record(2.5, 1, 1),
                                         Record(4.5, 1, 1)};
  EnergyResult r = ComputeEnergy(s, mb, 0.5);
  EXPECT_NEAR(r.stall_j, 2.5 + 4.5, 1e-9);
  EXPECT_NEAR(r.compute_j, 3.5 + 5.5, 1e-9);
  EXPECT_NEAR(r.energy_j, 24.0, 1e-9);
  EXPECT_LE(r.stall_j + r.compute_j, r.energy_j);
}

TEST(EnergyTest, ACudaCopyIsInNeitherPhaseAndWarmupIsLeftOut) {
  // Constant 1 W on [0, 10].
  std::vector<v1::TelemetrySample> s = {Sample(0, 1000), Sample(10, 1000)};
  // Ends at 3: 1 s stall [0.9, 1.9], 0.5 s copy, 1 s compute [2, 3] --
  // e2e 2.6 with 0.1 s of record writing before the stall.
  v1::MinibatchRecord copy = Record(3, 1, 1);
  copy.set_h2d_s(0.5);
  copy.set_e2e_s(copy.e2e_s() + 0.5);
  copy.set_t_start_s(3 - copy.e2e_s());
  // A warm-up minibatch ending at 6: no phase.
  v1::MinibatchRecord warm = Record(6, 1, 1);
  warm.set_warmup(true);
  EnergyResult r = ComputeEnergy(s, {copy, warm}, 0);
  EXPECT_NEAR(r.stall_j, 1.0, 1e-9);
  EXPECT_NEAR(r.compute_j, 1.0, 1e-9);
  EXPECT_NEAR(r.energy_j, 10.0, 1e-9);
}

TEST(EnergyTest, AccumulatorEstimatesWorkloadOffsetFromArrivals) {
  EnergyAccumulator acc;
  for (int i = 0; i <= 24; ++i) acc.AddSample(Sample(0.25 * i, 2000));
  // Ends at 2.5 and 4.5 (workload clock); they arrive 0.52 s and 0.50 s
  // later on the agent clock, so the offset is 0.50.
  acc.AddRecord(Record(2.5, 1, 1), 3.02);
  acc.AddRecord(Record(4.5, 1, 1), 5.0);
  EXPECT_NEAR(acc.WorkloadOffsetS(), 0.5, 1e-12);
  EnergyResult r = acc.Result();
  EXPECT_NEAR(r.energy_j, 12.0, 1e-9);
  EXPECT_NEAR(r.stall_j, 4.0, 1e-9);    // 2 s at 2 W
  EXPECT_NEAR(r.compute_j, 4.0, 1e-9);
}

TEST(EnergyTest, PhasesOutsideTheTraceAreClipped) {
  std::vector<v1::TelemetrySample> s = {Sample(1, 1000), Sample(2, 1000)};
  // Compute [0, 1.5]: only [1, 1.5] has readings.
  EnergyResult r = ComputeEnergy(s, {Record(1.5, 0, 1.5)}, 0);
  EXPECT_NEAR(r.compute_j, 0.5, 1e-12);
  EXPECT_EQ(r.stall_j, 0);
}

}  // namespace
}  // namespace powersweep
