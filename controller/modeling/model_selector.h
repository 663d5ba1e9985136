// Which stored model a query uses (v1::ModelSelector): the model with
// model_id, or the latest fit (highest fitted_unix_ms, then model_id) of
// the one workload that every set field of the selector matches (0, empty
// or UNSPECIFIED fields match anything; loader_workers only when present;
// tenants 0 and 1 are the same).
//
// Errors: NotFound when nothing matches (naming the selector and saying
// how to fit one); InvalidArgument when the selector matches models of
// more than one workload, listing each workload with its latest model id,
// or when model_id is given with fields the model does not have.
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_SELECTOR_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_SELECTOR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::modeling {

// Every field of `s` except model_id.
bool Matches(const v1::WorkloadModel& m, const v1::ModelSelector& s);

// "model 3" or "device_class=xavier-agx model=lenet5 batch_size=64"; "any
// model" when nothing is set.
std::string SelectorText(const v1::ModelSelector& s);

absl::StatusOr<v1::WorkloadModel> SelectModel(
    const std::vector<v1::WorkloadModel>& models, const v1::ModelSelector& s);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_SELECTOR_H_
