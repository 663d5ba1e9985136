// ModePoint: a mode with its epoch time, energy and mean power, predicted
// or measured; what the queries (queries.h) work on.
// Plain data; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODE_POINT_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODE_POINT_H_

#include "common/power/mode_space.h"

namespace powersweep::modeling {

struct ModePoint {
  CustomMode mode;
  double time_s = 0;    // epoch time
  double energy_j = 0;  // epoch energy
  double power_w = 0;   // mean power over the epoch (energy / time)
};

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODE_POINT_H_
