// Power model of a twin: static plus dynamic power per component, and the
// board's rails as weighted sums of the components (docs/twin-model.md,
// "Power model"):
//
//   V(f)/V(fmax) = v_floor + (1 - v_floor) * f / fmax
//   CPU  = sum over online cores of [ cpu_static_per_core
//          + cpu_dyn * f_ghz * V^2 * (idle + (1 - idle) * util_core) ]
//   GPU  = gpu_static + gpu_dyn * f_ghz * V^2 * (idle + (1 - idle) * util)
//   EMC  = emc_static + emc_dyn * f_ghz * (emc_idle + (1 - emc_idle) * util)
//   SOC, CV, SYS = static
// Every static term is multiplied by the instance's static-power factor.
// total = sum of the components; a board's total rail (VDD_IN, POM_5V_IN)
// equals it, and on boards without one the rails sum to it.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_POWER_MODEL_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_POWER_MODEL_H_

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "agent/platform/twin/perf_model.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"

namespace powersweep {

struct PowerBreakdown {
  std::array<double, kComponents> component_mw{};
  double total_mw = 0;
  std::vector<std::pair<std::string, double>> rails_mw;  // board order
};

// Normalised voltage at `f` for a clock whose maximum is `fmax`.
double NormalizedVoltage(double f, double fmax, double v_floor);

PowerBreakdown ModelPower(const TwinClass& cls,
                          const InstanceVariation& variation,
                          const OperatingPoint& op, const PhaseLoad& load);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_POWER_MODEL_H_
