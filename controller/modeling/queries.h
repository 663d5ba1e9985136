// Queries over modes with (predicted or measured) epoch time, energy and
// power: the best mode under a budget, the time-energy Pareto front, and
// whether a given mode (e.g. the default, MAXN) is on it.
//
// Ties: least energy breaks ties by less time, fastest by less energy, then
// the earlier point wins. Errors: InvalidArgument for no points or a budget
// that is not positive and finite; NotFound when no point meets the budget,
// saying the best achievable value and its mode, e.g. "no mode has epoch
// time <= 90 s (the fastest takes 120.3 s: cores=8 cpu=2265600kHz ...)".
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_QUERIES_H_
#define POWERSWEEP_CONTROLLER_MODELING_QUERIES_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "controller/modeling/mode_point.h"

namespace powersweep::modeling {

// The least-energy point with time_s <= max_time_s.
absl::StatusOr<ModePoint> LeastEnergyWithinTime(
    const std::vector<ModePoint>& points, double max_time_s);
// The fastest point with power_w <= max_power_w.
absl::StatusOr<ModePoint> FastestWithinPower(
    const std::vector<ModePoint>& points, double max_power_w);
// The fastest point with energy_j <= max_energy_j.
absl::StatusOr<ModePoint> FastestWithinEnergy(
    const std::vector<ModePoint>& points, double max_energy_j);

// The points no other point dominates (another point is no slower and uses
// no more energy, and is better in one), by time ascending (so energy
// descending). Points with identical time and energy are all kept.
std::vector<ModePoint> ParetoFront(const std::vector<ModePoint>& points);

struct FrontMembership {
  ModePoint point;     // the queried mode's figures
  bool on_front = false;
  // When not on the front: the dominating point with the least energy
  // (ties: less time).
  std::optional<ModePoint> dominated_by;
};
// NotFound when `mode` is not among the points.
absl::StatusOr<FrontMembership> CheckOnFront(
    const std::vector<ModePoint>& points, const CustomMode& mode);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_QUERIES_H_
