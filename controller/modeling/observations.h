// Observations for the time and energy models, read from the store: the
// done runs of one or more sweeps, grouped by workload (device class, model, dataset,
// task, batch size, loader workers, runtime, tenants), each run reduced to
// the mode it ran at and its epoch time and epoch energy.
//
// Per run:
//   mode          RunResult.applied_mode.actual (what the device really
//                 ran), else the requested mode with its preset resolved
//                 (class_space.h RunMode); host: cores and CPU frequency
//                 only.
//   epoch time    mean minibatch time end to end (RunSummary
//                 .mean_minibatch_s, controller/analysis/run_summary.h)
//                 x minibatches per epoch (epoch.h).
//   epoch energy  (energy_stall_j + energy_compute_j) / minibatches x
//                 minibatches per epoch when the phase split is > 0 (the
//                 energy of the minibatches themselves, without start-up);
//                 else the mean power (energy over its span) x epoch time; 0 (none) when the
//                 run has no energy.
// With T tenants, minibatches per tenant are the run's minibatches / T:
// the epoch time is each tenant's, the energy the device's while all T
// run.
//
// Left out, each with a line in `skipped`: runs not done, baseload runs,
// runs without minibatch records, runs whose mode cannot be resolved.
//
// Thread-safe if the Store is.
#ifndef POWERSWEEP_CONTROLLER_MODELING_OBSERVATIONS_H_
#define POWERSWEEP_CONTROLLER_MODELING_OBSERVATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "common/power/power_catalog.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/workload.pb.h"
#include "storage/store.h"

namespace powersweep::modeling {

struct WorkloadKey {
  std::string device_class;
  std::string model;
  std::string dataset;
  v1::Task task = v1::TASK_UNSPECIFIED;
  int32_t batch_size = 0;
  int32_t loader_workers = 0;
  v1::Runtime runtime = v1::RUNTIME_UNSPECIFIED;
  int32_t tenants = 1;  // >= 1
  bool operator<(const WorkloadKey& o) const;
  bool operator==(const WorkloadKey& o) const;
};
// The key of a run (tenants 0 counts as 1).
WorkloadKey KeyOf(const v1::RunSpec& spec);
// "lenet5 fashion-mnist train batch 64 workers 0 on xavier-agx" (runtime
// and tenants appended when not native / 1).
std::string KeyLabel(const WorkloadKey& key);

struct RunObservation {
  int64_t run_id = 0;
  int64_t sweep_id = 0;
  std::string device_id;
  CustomMode mode;
  bool mode_applied = false;  // from the applied mode (else requested)
  int64_t minibatches = 0;    // per tenant
  double epoch_time_s = 0;
  double epoch_energy_j = 0;  // 0: the run has no energy
  v1::Provenance energy_provenance = v1::PROVENANCE_UNSPECIFIED;
  bool simulated = false;          // a twin device ran it (time simulated too)
  bool cpu_freq_emulated = false;  // host: CPU frequency emulated
};

struct ObservationGroup {
  WorkloadKey key;
  v1::EpochDefinition epoch;  // of the group (unit "run": first run's count)
  std::vector<RunObservation> runs;             // by sweep, then run id
  std::vector<v1::DeviceCapabilities> devices;  // of the devices that ran them
};

struct SweepObservations {
  std::vector<int64_t> sweep_ids;        // ascending, distinct
  std::vector<ObservationGroup> groups;  // by key, runs of every sweep
  std::vector<std::string> skipped;      // "run 12: not done (failed)"
};

// One run as an observation, from its spec, result (may be null) and
// summary; `device` (may be null) fills knobs a host run left 0.
// InvalidArgument when the run has no minibatches or a non-positive mean
// minibatch time; the mode's errors (class_space.h RunMode) otherwise.
absl::StatusOr<RunObservation> ObserveRun(const v1::RunStatus& run,
                                          const v1::RunResult* result,
                                          const v1::RunSummary& summary,
                                          const PowerCatalog& catalog,
                                          const v1::DeviceCapabilities* device);

// NotFound for an unknown sweep; store errors otherwise.
absl::StatusOr<SweepObservations> CollectObservations(
    Store* store, int64_t sweep_id, const PowerCatalog& catalog);
// The runs of several sweeps in one set of groups: runs of one workload in
// different sweeps (e.g. a plan-profiling sweep and its follow-up) fit
// together. InvalidArgument for no sweep or a non-positive id (named);
// NotFound for an unknown sweep (named).
absl::StatusOr<SweepObservations> CollectObservations(
    Store* store, std::vector<int64_t> sweep_ids, const PowerCatalog& catalog);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_OBSERVATIONS_H_
