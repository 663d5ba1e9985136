#include "agent/platform/host/power_model.h"

#include <algorithm>

namespace powersweep {

double ModeledPowerMw(const std::vector<CoreLoad>& cores,
                      const PowerModelParams& params) {
  double p = params.idle_mw;
  for (const CoreLoad& c : cores) {
    const double u = std::clamp(c.util, 0.0, 1.0);
    const double s = std::clamp(c.freq_ratio, 0.0, 1.0);
    const double scale = c.emulated ? s * s : s * s * s;
    p += u * params.core_max_mw * scale;
  }
  return p;
}

}  // namespace powersweep
