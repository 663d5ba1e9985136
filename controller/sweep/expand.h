// Sweep expansion: the cartesian product of a SweepSpec's axes, times its
// repetitions, as RunSpecs ready to be stored (run_id and sweep_id are left
// 0 for the Store to assign). Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_EXPAND_H_
#define POWERSWEEP_CONTROLLER_SWEEP_EXPAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/sweep/placement.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/sweep.pb.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep {

// One workload of the sweep: a model on a data set, for every task of the
// sweep or only `task`.
struct WorkloadPair {
  std::string model;
  std::string dataset;
  v1::Task task = v1::TASK_UNSPECIFIED;  // unspecified = every task
};

// One `workloads` entry, "MODEL/DATASET" or "MODEL/DATASET:TASK" (TASK
// train or infer). InvalidArgument with the reason otherwise: "expected
// MODEL/DATASET[:TASK], e.g. resnet50/imagenet:infer, got 'X'" or "the
// task after ':' must be train or infer, got 'X'".
absl::StatusOr<WorkloadPair> ParseWorkloadEntry(const std::string& entry);

// The workloads of the sweep: its `workloads` entries (an entry that does
// not parse gives empty parts, which validation reports), else the product
// of models and datasets.
std::vector<WorkloadPair> WorkloadPairs(const v1::SweepSpec& spec);

// Whether power_modes[mode_index] applies to `device_class`
// (SweepSpec.power_mode_classes: no entry, or an empty list, is every
// class).
bool ModeAppliesTo(const v1::SweepSpec& spec, int mode_index,
                   const std::string& device_class);

// The tasks a workload pair runs: its own task when its entry has a
// suffix (":infer" implies infer, whatever `tasks` says), else every
// non-baseload task of the sweep.
std::vector<v1::Task> PairTasks(const v1::SweepSpec& spec,
                                const WorkloadPair& pair);

// Number of runs ExpandSweep would produce (saturates at INT64_MAX, so it
// is safe to call on unvalidated specs).
int64_t CountRuns(const v1::SweepSpec& spec,
                  const DevicePlacement& placement = {});

// Expects a spec with defaults filled and validated. A class runs only the
// power modes that apply to it (ModeAppliesTo); a workload pair its
// PairTasks. Order: repetition
// outermost, then device_classes, models, datasets, tasks, batch_sizes,
// loader_workers, tenants, prefetch_depths, page_cache, power_modes,
// runtimes (the last varies fastest). preload is set on infer runs only,
// input_size on every workload run. Every
// run carries the workload (stop conditions, seed, threads), telemetry_hz,
// timeout_s, its 0-based repetition and attempt 1.
// Baseload tasks (TASK_BASELOAD) do not multiply with models, datasets,
// batch sizes and loader workers: per repetition and device class, one
// baseload run per power mode and runtime comes before the workload runs,
// with only the task and duration_s in its workload.
// Placement: a run of a class with devices in `placement` carries them in
// RunSpec.devices; with every_device it is expanded once per device, the
// device varying fastest (so each device takes its cells in the same
// order, and repetition r of every device is queued before repetition
// r + 1 of any: drift over time is not confused with the instance).
// Every run carries the sweep's settle block.
std::vector<v1::RunSpec> ExpandSweep(const v1::SweepSpec& spec,
                                     const DevicePlacement& placement = {});

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_EXPAND_H_
