// Fitting one workload's time and energy models from its observations
// (observations.h) into the WorkloadModel the store keeps.
//
// Time: SelectTimeModel over every time form (so the SIGMETRICS paper's
// `linear` is always reported next to the chosen form). Energy, when runs
// have energy: SelectEnergyModel over every energy form, on the runs with
// energy, with the chosen time model; if that fails the model keeps its
// time model and says why in `notes`.
//
// Errors: InvalidArgument when the time model cannot be fitted, the
// message starting with the workload, e.g. "lenet5 fashion-mnist train
// batch 64 workers 0 on host: need at least 3 distinct modes for form
// reciprocal_cross (...), got 1" (the library's reason, cross_validation.h);
// class_space.h errors for the space. Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_WORKLOAD_FIT_H_
#define POWERSWEEP_CONTROLLER_MODELING_WORKLOAD_FIT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/power/power_catalog.h"
#include "controller/modeling/observations.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::modeling {

// With a `reference` (FitModelsRequest.reference_model_id): transfer
// (transfer.h): the reference's time model, and its energy model when it
// has one, are the prior of the fit; cross-validation chooses between
// them and the plain forms, and `notes` say which was used and why. The
// reference's class may differ from the group's.
//
// model_id is left 0 (the store assigns it); fitted_unix_ms is `now`;
// sweep_ids are the sweeps of the group's runs (sweep_id the first).
absl::StatusOr<v1::WorkloadModel> FitWorkload(
    const ObservationGroup& group, const PowerCatalog& catalog,
    absl::Time now, const v1::WorkloadModel* reference = nullptr);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_WORKLOAD_FIT_H_
