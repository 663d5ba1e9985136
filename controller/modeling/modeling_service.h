// ModelingService: the logic behind the Control RPCs FitModels, ListModels,
// Predict, Best, Pareto and PlanProfiling. The gRPC adapter
// (controller/service/control_service.cc) only translates statuses.
//
//   FitModels     observations.h groups of the sweep's done runs; each
//                 group fitted (workload_fit.h) and stored (Store::SaveModel).
//                 A group that cannot be fitted is a line in `problems`, not
//                 an error of the call.
//   ListModels    the stored models matching the selector (all if empty),
//                 oldest first.
//   Predict       the selected model (model_selector.h) at each asked mode
//                 (class_space.h ResolveQueryMode: presets, 0 knobs = max).
//   Best          least energy under an epoch-time budget, or fastest under
//                 a power or energy budget, over the model's whole mode
//                 space (queries.h); `conservative` judges the budget on
//                 the intervals' upper ends.
//   Pareto        the time-energy front over the whole space (or over the
//                 measured modes with their measured figures), and whether
//                 the class's default mode (MAXN, else all knobs at max) is
//                 on it.
//   PlanProfiling K modes of the class's space to profile (plan.h, greedy
//                 D-optimal), or K more after a sweep's profiled modes, and
//                 the sweep file that profiles them.
// Every prediction is marked `measured` when the model was fitted on runs
// at that mode (with their means); every response carries the model and
// its basis (model_text.h).
//
// Errors (absl::Status, message naming the field or the model):
// InvalidArgument for bad requests (no sweep id, no modes, not exactly one
// budget, a mode not of the class, an ambiguous selector); NotFound for an
// unknown sweep or no matching model, or no mode meeting a budget;
// FailedPrecondition for a query that needs energy on a model without it,
// or a host plan with no registered host device; store errors as they
// come.
//
// Thread-safe if the Store is (no state of its own besides the catalog).
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODELING_SERVICE_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODELING_SERVICE_H_

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "common/power/power_catalog.h"
#include "powersweep/v1/modeling.pb.h"
#include "storage/store.h"

namespace powersweep::modeling {

class ModelingService {
 public:
  // `clock` stamps fitted_unix_ms. Neither is owned; both outlive this.
  ModelingService(Store* store, Clock* clock,
                  PowerCatalog catalog = PowerCatalog::Default());

  absl::StatusOr<v1::FitModelsResponse> FitModels(
      const v1::FitModelsRequest& request);
  absl::StatusOr<v1::ListModelsResponse> ListModels(
      const v1::ListModelsRequest& request);
  absl::StatusOr<v1::PredictResponse> Predict(
      const v1::PredictRequest& request);
  absl::StatusOr<v1::BestResponse> Best(const v1::BestRequest& request);
  absl::StatusOr<v1::ParetoResponse> Pareto(const v1::ParetoRequest& request);
  absl::StatusOr<v1::PlanProfilingResponse> PlanProfiling(
      const v1::PlanProfilingRequest& request);

 private:
  Store* store_;
  Clock* clock_;
  const PowerCatalog catalog_;
};

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODELING_SERVICE_H_
