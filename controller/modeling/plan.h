// Choosing which modes to profile: a greedy D-optimal design over a model
// form's features, so that a fit on few profiled modes is as well
// determined as the space allows.
//
// Design features of a mode (knobs scaled as in model_form.h, only knobs
// with more than one value in the space), one block per form:
//   - a linear time form: its features;
//   - "overlap": the sensitivities d log t / d log(parameter) at a neutral
//     guess, the form's first starting point for times all 1 (the units
//     balanced at the candidates' mean reciprocal clocks, serial work 5%,
//     p = 2): a locally D-optimal design for the nonlinear form, which
//     spreads the modes over the regimes where each unit dominates and
//     where they balance;
//   - with an energy form, a second block with its features (predicted
//     time 1, GPU busy share 0.5), so the design also varies what the
//     energy model needs (cores, which no time form may use; interior
//     clocks for the squared terms).
// Each column is scaled to unit root-mean-square over the candidates.
//
// Greedy compound D-optimality: each block starts from M = ridge * I
// (ridge 1e-3, so picks are defined while fewer modes than features are
// chosen) plus the profiled modes; the first plan is seeded with two
// corners of the space, all knobs at their maximum (the default MAXN-like
// mode) then all at their minimum; then the candidate x maximising
// sum over blocks of log(1 + x' M^-1 x) (the growth of the sum of the
// blocks' log det M) is added, repeatedly, ties to the lower index.
// Deterministic.
//
// Balance: no value of a knob that varies in the space may hold more than
// half (rounded up) of the plan's modes, the profiled ones included (8
// modes: at most 4 at one memory clock, one CPU clock, ...). The greedy
// step takes the best candidate that keeps this; only when none does is
// the cap ignored. Without it the D-optimal picks pile onto the extremes
// of the knobs that matter most (Xavier AGX, overlap + power_util_x_time:
// 5 of 8 modes at the 204 MHz memory clock, 5 at the top CPU clock), and
// the energy forms, fitted on 8 modes with 6 coefficients, then
// extrapolate over the rest of the space (controller/modeling/README.md).
//
// Center: a first plan of 4 or more modes ends with the center of the space
// (every clock at the table value nearest the middle of its range, half the
// cores rounded up; the greedy steps skip it), unless the corners already
// are it. D-optimal picks for these forms sit at the ends of every knob,
// and the energy forms' curvature between the ends is then unchecked: on
// the calibrated twin, LeNet-5's power was over-predicted by 10-15% inside
// the space (controller/modeling/README.md). PlanNextModes adds no center.
//
// Candidates: every mode of the space when it has at most 50,000 (all
// 29,232 Xavier AGX modes); otherwise every ceil(size / 50,000)-th index,
// plus the two corners and the center.
//
// Errors (InvalidArgument): unknown form; k < 1; k more than the modes left
// to choose; an empty space; a profiled mode that is not a mode of the
// space (ModeSpace::IndexOf's message). FailedPrecondition: the time
// form cannot use the knobs of the space (overlap with a single clock).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_PLAN_H_
#define POWERSWEEP_CONTROLLER_MODELING_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"

namespace powersweep::modeling {

struct ProfilingPlan {
  std::string time_form;
  std::string energy_form;           // empty: time only
  std::vector<CustomMode> modes;     // proposed, in the order chosen
  std::vector<int64_t> indices;      // their ModeSpace indices
  int64_t candidates = 0;            // modes considered
  // log det of M after adding the proposed modes (design features; larger
  // is better determined), to compare plans of the same forms.
  double log_det = 0;
};

// K modes to profile first.
absl::StatusOr<ProfilingPlan> PlanProfiling(
    const ModeSpace& space, const std::string& time_form, int k,
    const std::string& energy_form = "");

// K more modes given the ones already profiled (which are not proposed
// again; no corner seeding).
absl::StatusOr<ProfilingPlan> PlanNextModes(
    const ModeSpace& space, const std::string& time_form,
    const std::vector<CustomMode>& profiled, int k,
    const std::string& energy_form = "");

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_PLAN_H_
