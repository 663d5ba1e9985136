// The sweep that profiles the modes a plan proposes (plan.h), as a
// SweepSpec; controller/sweep/sweep_file.h writes it as the sweep file
// `powersweep submit` accepts.
//
// One device class, one workload (model, dataset, task, batch size, loader
// workers, runtime), the proposed modes as explicit knobs, a minibatch
// stop condition. Defaults (WithPlanDefaults): lenet5, fashion-mnist,
// train, batch 64, 0 workers, native, 200 minibatches, 1 repetition, name
// "plan-CLASS-MODEL-kK".
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_PROFILING_SWEEP_H_
#define POWERSWEEP_CONTROLLER_MODELING_PROFILING_SWEEP_H_

#include <string>
#include <vector>

#include "common/power/mode_space.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep::modeling {

inline constexpr int64_t kDefaultPlanMinibatches = 200;

v1::PlanProfilingRequest WithPlanDefaults(const v1::PlanProfilingRequest& r);

// `r` with its defaults filled; `modes` as custom modes (knobs that are 0
// are left out).
v1::SweepSpec ProfilingSweep(const v1::PlanProfilingRequest& r,
                             const std::vector<CustomMode>& modes);

// A follow-up plan's sweep (after_sweep_id) runs like the sweep it builds
// on: from `earlier` it keeps repetitions and the stop condition (minibatches,
// epochs, duration) unless `request` set them, and always placement,
// devices, settle, threads, tenants, seed, telemetry rate, timeout, retries,
// container image, prefetch, page cache, input size, seq_len, vocab and vm
// (when `sweep` runs vm).
// Returns what was kept, in words ("repetitions 3, placement
// every_device"), for the plan's notes; empty when nothing differed from
// the defaults.
std::string KeepEarlierRunSettings(const v1::SweepSpec& earlier,
                                   const v1::PlanProfilingRequest& request,
                                   v1::SweepSpec* sweep);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_PROFILING_SWEEP_H_
