#include "controller/modeling/modeling_service.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/modeling/instances.h"
#include "controller/modeling/model_selector.h"
#include "controller/modeling/observations.h"
#include "controller/modeling/workload_fit.h"

namespace powersweep::modeling {

ModelingService::ModelingService(Store* store, Clock* clock,
                                 PowerCatalog catalog)
    : store_(store), clock_(clock), catalog_(std::move(catalog)) {}

absl::StatusOr<v1::FitModelsResponse> ModelingService::FitModels(
    const v1::FitModelsRequest& request) {
  std::vector<int64_t> sweep_ids(request.sweep_ids().begin(),
                                 request.sweep_ids().end());
  if (request.sweep_id() != 0) sweep_ids.push_back(request.sweep_id());
  if (sweep_ids.empty()) {
    return absl::InvalidArgumentError(
        "sweep_id: a positive sweep id is required");
  }
  PS_ASSIGN_OR_RETURN(Instances how, ParseInstances(request.instances()));
  std::optional<v1::WorkloadModel> reference;
  if (request.reference_model_id() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("reference_model_id: must be a model id (positive), got ",
                     request.reference_model_id()));
  }
  if (request.reference_model_id() > 0) {
    absl::StatusOr<v1::WorkloadModel> m =
        store_->GetModel(request.reference_model_id());
    if (!m.ok()) {
      return absl::Status(
          m.status().code(),
          absl::StrCat("reference_model_id: ", m.status().message()));
    }
    reference = *std::move(m);
  }
  PS_ASSIGN_OR_RETURN(SweepObservations obs,
                      CollectObservations(store_, sweep_ids, catalog_));
  std::vector<v1::DeviceOffset> offsets;
  if (how == Instances::kOffsets) {
    PS_ASSIGN_OR_RETURN(offsets, store_->ListDeviceOffsets(""));
  }
  PS_ASSIGN_OR_RETURN(std::vector<InstanceGroup> groups,
                      InstanceGroups(obs.groups, how, offsets));
  v1::FitModelsResponse out;
  for (const std::string& s : obs.skipped) out.add_skipped(s);
  if (obs.groups.empty()) {
    out.add_problems(absl::StrCat(
        obs.sweep_ids.size() == 1 ? "sweep " : "sweeps ",
        absl::StrJoin(obs.sweep_ids, ", "),
        obs.sweep_ids.size() == 1 ? " has" : " have",
        " no done run with minibatch records to fit"));
  }
  const absl::Time now = clock_->Now();
  for (const InstanceGroup& ig : groups) {
    absl::StatusOr<v1::WorkloadModel> m =
        FitWorkload(ig.group, catalog_, now,
                    reference.has_value() ? &*reference : nullptr);
    if (!m.ok()) {
      out.add_problems(ig.device_id.empty()
                           ? std::string(m.status().message())
                           : absl::StrCat(ig.device_id, ": ",
                                          m.status().message()));
      continue;
    }
    m->set_instances(InstancesName(how));
    m->set_device_id(ig.device_id);
    for (const v1::DeviceOffset& o : ig.applied) *m->add_offsets_applied() = o;
    for (const std::string& n : ig.notes) m->add_notes(n);
    PS_ASSIGN_OR_RETURN(int64_t id, store_->SaveModel(*m));
    m->set_model_id(id);
    out.set_runs_used(out.runs_used() + m->run_ids_size());
    *out.add_models() = *std::move(m);
  }
  return out;
}

absl::StatusOr<v1::ListModelsResponse> ModelingService::ListModels(
    const v1::ListModelsRequest& request) {
  PS_ASSIGN_OR_RETURN(std::vector<v1::WorkloadModel> models,
                      store_->ListModels());
  v1::ListModelsResponse out;
  for (v1::WorkloadModel& m : models) {
    // Without a device, every model: the class's and each device's own.
    v1::ModelSelector s = request.selector();
    if (s.device_id().empty()) s.set_device_id(m.device_id());
    if (s.model_id() != 0 && s.model_id() != m.model_id()) continue;
    if (!Matches(m, s)) continue;
    *out.add_models() = std::move(m);
  }
  return out;
}

}  // namespace powersweep::modeling
