// Modeled CPU power for hosts without a power sensor (no RAPL, no NVML).
// Every value it gives is labelled PROVENANCE_MODELED.
//
//   P = P_idle + sum over the run's cores c of  u_c * P_core_max * s_c^k
//
//   u_c         busy fraction of core c since the previous sample (/proc/stat)
//   s_c         f_c / f_max, the core's frequency relative to its maximum
//   P_idle      3000 mW  (package static power, uncore, memory at idle)
//   P_core_max  4000 mW  (dynamic power of one fully busy core at f_max)
//   k = 3 when the frequency is real (cpufreq): dynamic power is C V^2 f
//         and DVFS scales V about linearly with f, so a busy core draws
//         P_core_max * s^3;
//   k = 2 when the frequency is EMULATED by a bandwidth quota: the core
//         still runs at f_max, so a workload that would keep a core at
//         s * f_max busy shows u = s at f_max; its energy per unit of work
//         (C V^2 per cycle) scales with s^2, so the time-averaged power is
//         u * P_core_max * s^2 (= P_core_max * s^3 for a saturated core,
//         the same as a real clock).
//
// The constants are typical of one server-class x86 core and are stated
// here so results can be recomputed; they are not calibrated for any
// particular machine. P is monotonic (non-decreasing) in every u_c and s_c.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_HOST_POWER_MODEL_H_
#define POWERSWEEP_AGENT_PLATFORM_HOST_POWER_MODEL_H_

#include <vector>

namespace powersweep {

struct PowerModelParams {
  double idle_mw = 3000;
  double core_max_mw = 4000;
};

struct CoreLoad {
  double util = 0;          // 0..1 (clamped)
  double freq_ratio = 1;    // f / f_max, 0..1 (clamped)
  bool emulated = false;    // frequency imposed by a quota, not cpufreq
};

double ModeledPowerMw(const std::vector<CoreLoad>& cores,
                      const PowerModelParams& params = PowerModelParams());

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_HOST_POWER_MODEL_H_
