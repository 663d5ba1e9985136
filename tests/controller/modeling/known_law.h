// Test helper: a known time and power law over Xavier AGX modes, and a
// synthetic twin run that follows it, for the modeling tests that fit it
// back. Pure functions.
#ifndef POWERSWEEP_TESTS_CONTROLLER_MODELING_KNOWN_LAW_H_
#define POWERSWEEP_TESTS_CONTROLLER_MODELING_KNOWN_LAW_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "controller/modeling/model_form.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/modeling_service.h"
#include "gtest/gtest.h"
#include "tests/controller/modeling/stored_runs.h"

namespace powersweep::testing {

// Seconds per minibatch and watts at a mode.
inline double LawMinibatchS(const CustomMode& m) {
  const modeling::ScaledMode x = modeling::Scale(m);
  return 0.002 / x.cpu_ghz + 0.004 / x.gpu_ghz + 0.001 / x.mem_ghz + 0.0005;
}
inline double LawPowerW(const CustomMode& m) {
  const modeling::ScaledMode x = modeling::Scale(m);
  return 4 + 0.3 * x.cores + 1.5 * x.cpu_ghz + 6 * x.gpu_ghz + x.mem_ghz;
}

// A lenet5 training run of three minibatches on an xavier-agx twin at
// `mode`, `slowdown` times slower than the law at the same power.
inline SyntheticRun LawRun(const CustomMode& mode, int32_t batch,
                           const std::string& device, double slowdown = 1) {
  SyntheticRun r;
  r.spec = LenetSpec("xavier-agx", v1::TASK_TRAIN, batch);
  *r.spec.mutable_power_mode() = modeling::ToPowerMode(mode);
  r.actual = modeling::ToPowerMode(mode);
  const double t = LawMinibatchS(mode) * slowdown;
  r.e2e_s = {t, t, t};
  r.energy_compute_j = 3 * t * LawPowerW(mode);
  r.energy_j = r.energy_compute_j;
  r.duration_s = 3 * t;
  r.energy_provenance = v1::PROVENANCE_SIMULATED;
  r.framework = "twin-model";
  r.device_id = device;
  return r;
}

// The K modes `plan-profiling` proposes for xavier-agx (lenet5), the modes
// the tests profile; empty after a failed assertion.
inline std::vector<CustomMode> PlannedModes(modeling::ModelingService& service,
                                            int k) {
  v1::PlanProfilingRequest plan;
  plan.set_device_class("xavier-agx");
  plan.set_k(k);
  auto planned = service.PlanProfiling(plan);
  EXPECT_TRUE(planned.ok()) << planned.status();
  std::vector<CustomMode> modes;
  if (planned.ok()) {
    for (const v1::PowerMode& m : planned->modes()) {
      modes.push_back(modeling::KnobsOf(m));
    }
  }
  return modes;
}

inline double Ape(double got, double truth) {
  return 100 * std::abs(got - truth) / truth;
}

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_CONTROLLER_MODELING_KNOWN_LAW_H_
