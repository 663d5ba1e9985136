// The words every model output carries: the workload a model is of, and
// the basis of its figures (predictions, from which runs of which sweep,
// with which data provenance).
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_TEXT_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_TEXT_H_

#include <string>

#include "common/workload_label.h"  // WorkloadLabel, used with these
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::modeling {


// "runs 3-10" or "runs 3, 5, 9" (at most 6 listed, then "... (12 runs)").
std::string RunIdsText(const v1::WorkloadModel& m);

// "predictions of model 4 (lenet5 ... on xavier-agx; time overlap, energy
// power_util_x_time), fitted 2024-05-01 12:00:00 UTC on 8 runs of sweep 1
// (runs 1-8) at 8 modes; data: times simulated ...; energy simulated ...;
// per epoch: one epoch = ..."
std::string Basis(const v1::WorkloadModel& m);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_TEXT_H_
