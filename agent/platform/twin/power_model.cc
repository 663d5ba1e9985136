#include "agent/platform/twin/power_model.h"

#include <algorithm>

namespace powersweep {

double NormalizedVoltage(double f, double fmax, double v_floor) {
  if (fmax <= 0) return 1.0;
  return v_floor + (1 - v_floor) * std::clamp(f / fmax, 0.0, 1.0);
}

PowerBreakdown ModelPower(const TwinClass& cls,
                          const InstanceVariation& variation,
                          const OperatingPoint& op, const PhaseLoad& load) {
  const TwinPowerConstants& k = cls.power;
  const OperatingPoint max = cls.Max();
  const double s = variation.static_power;
  PowerBreakdown p;

  const double cpu_ghz = op.cpu_khz * 1e-6;
  const double cpu_v =
      NormalizedVoltage(op.cpu_khz, max.cpu_khz, k.v_floor);
  double cpu = 0;
  for (int i = 0; i < op.cores; ++i) {
    const double util =
        i < static_cast<int>(load.core_util.size()) ? load.core_util[i] : 0;
    cpu += k.cpu_static_mw_per_core * s +
           k.cpu_dyn_mw_per_ghz * cpu_ghz * cpu_v * cpu_v *
               (k.idle_activity + (1 - k.idle_activity) * util);
  }
  p.component_mw[kCpu] = cpu + k.static_mw[kCpu] * s;

  const double gpu_ghz = op.gpu_hz * 1e-9;
  const double gpu_v = NormalizedVoltage(static_cast<double>(op.gpu_hz),
                                         static_cast<double>(max.gpu_hz),
                                         k.v_floor);
  p.component_mw[kGpu] =
      k.static_mw[kGpu] * s +
      k.gpu_dyn_mw_per_ghz * gpu_ghz * gpu_v * gpu_v *
          (k.idle_activity + (1 - k.idle_activity) * load.gpu_util);

  const double mem_ghz = op.mem_hz * 1e-9;
  p.component_mw[kEmc] =
      k.static_mw[kEmc] * s +
      k.emc_dyn_mw_per_ghz * mem_ghz *
          (k.emc_idle_activity + (1 - k.emc_idle_activity) * load.mem_util);

  for (PowerComponent c : {kSoc, kCv, kSys}) {
    p.component_mw[c] = k.static_mw[c] * s;
  }
  for (double mw : p.component_mw) p.total_mw += mw;

  for (const RailSpec& rail : cls.rails) {
    double mw = 0;
    for (int c = 0; c < kComponents; ++c) {
      mw += rail.weights[c] * p.component_mw[c];
    }
    p.rails_mw.emplace_back(rail.name, mw);
  }
  return p;
}

}  // namespace powersweep
