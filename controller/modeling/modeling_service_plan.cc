// ModelingService::PlanProfiling: which modes to profile next, as a sweep.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "controller/modeling/class_space.h"
#include "controller/modeling/fit.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/model_selector.h"
#include "controller/modeling/modeling_service.h"
#include "controller/modeling/observations.h"
#include "controller/modeling/plan.h"
#include "controller/modeling/profiling_sweep.h"
#include "controller/sweep/sweep_file.h"

namespace powersweep::modeling {
namespace {

// The time form a plan designs for when the request names none: "overlap"
// needs two settable clocks.
std::string DefaultTimeForm(const ModeSpace& space) {
  const DeviceClassSpec& s = space.spec();
  const int clocks = (s.cpu_freqs_khz.size() > 1) +
                     (s.gpu_freqs_hz.size() > 1) + (s.mem_freqs_hz.size() > 1);
  return clocks >= 2 ? "overlap" : "reciprocal_cross";
}

// The selector of the profiled workload of a plan request.
v1::ModelSelector PlanSelector(const v1::PlanProfilingRequest& r) {
  v1::ModelSelector s;
  s.set_device_class(r.device_class());
  s.set_model(r.model());
  s.set_dataset(r.dataset());
  s.set_task(r.task());
  s.set_batch_size(r.batch_size());
  s.set_loader_workers(r.loader_workers());
  s.set_sweep_id(r.after_sweep_id());
  return s;
}

bool GroupMatches(const WorkloadKey& k, const v1::PlanProfilingRequest& r) {
  return k.device_class == r.device_class() && k.model == r.model() &&
         k.dataset == r.dataset() && k.task == r.task() &&
         k.batch_size == r.batch_size() &&
         k.loader_workers == r.loader_workers();
}

}  // namespace

absl::StatusOr<v1::PlanProfilingResponse> ModelingService::PlanProfiling(
    const v1::PlanProfilingRequest& request) {
  if (request.device_class().empty()) {
    return absl::InvalidArgumentError("device_class: required");
  }
  if (request.k() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("k: the number of modes to propose must be at least 1, "
                     "got ",
                     request.k()));
  }
  const v1::PlanProfilingRequest r = WithPlanDefaults(request);
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceStatus> devices,
                      store_->ListDevices());
  std::vector<v1::DeviceCapabilities> caps;
  for (const v1::DeviceStatus& d : devices) {
    if (d.identity().device_class() == r.device_class()) {
      caps.push_back(d.capabilities());
    }
  }
  v1::PlanProfilingResponse out;
  std::vector<CustomMode> profiled;
  if (r.after_sweep_id() != 0) {
    PS_ASSIGN_OR_RETURN(
        SweepObservations obs,
        CollectObservations(store_, r.after_sweep_id(), catalog_));
    std::vector<CustomMode> modes;
    for (const ObservationGroup& g : obs.groups) {
      if (!GroupMatches(g.key, r)) continue;
      for (const RunObservation& o : g.runs) modes.push_back(o.mode);
    }
    profiled = DistinctModes(modes);
    if (profiled.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "after_sweep_id: sweep ", r.after_sweep_id(), " has no done run of ",
          r.model(), " ", r.dataset(), " batch ", r.batch_size(), " workers ",
          r.loader_workers(), " on ", r.device_class(), " to build on"));
    }
    for (const CustomMode& m : profiled) {
      *out.add_already_profiled() = ToPowerMode(m);
    }
  }
  PS_ASSIGN_OR_RETURN(ModeSpace space,
                      ClassSpace(r.device_class(), catalog_, caps, profiled));
  const std::string time_form =
      r.time_form().empty() ? DefaultTimeForm(space) : r.time_form();
  const std::string energy_form =
      r.energy_form().empty() ? "power_util_x_time" : r.energy_form();
  PS_ASSIGN_OR_RETURN(
      ProfilingPlan plan,
      profiled.empty()
          ? modeling::PlanProfiling(space, time_form, r.k(), energy_form)
          : PlanNextModes(space, time_form, profiled, r.k(), energy_form));

  for (const CustomMode& m : plan.modes) *out.add_modes() = ToPowerMode(m);
  for (int64_t i : plan.indices) out.add_space_indices(i);
  out.set_time_form(plan.time_form);
  out.set_energy_form(plan.energy_form);
  out.set_space_size(space.Size());
  out.set_candidates(plan.candidates);
  out.set_log_det(plan.log_det);
  *out.mutable_sweep() = ProfilingSweep(r, plan.modes);
  std::string kept;
  if (r.after_sweep_id() != 0) {
    PS_ASSIGN_OR_RETURN(v1::SweepSpec earlier,
                        store_->GetSweepSpec(r.after_sweep_id()));
    kept = KeepEarlierRunSettings(earlier, request, out.mutable_sweep());
  }
  std::vector<std::string> comment = {
      absl::StrCat("Written by powersweep plan-profiling: ", r.k(),
                   profiled.empty() ? "" : " more", " of the ", space.Size(),
                   " power modes of ", r.device_class(), " to profile ",
                   r.model(), " (", r.dataset(), ", batch ", r.batch_size(),
                   ")"),
      absl::StrCat("so that a fit of time form ", plan.time_form,
                   " and energy form ", plan.energy_form,
                   " is best determined (greedy D-optimal design, "
                   "controller/modeling/plan.h)."),
      "Submit with `powersweep submit FILE`; when it is done, fit with "
      "`powersweep fit --sweep ID`."};
  if (!profiled.empty()) {
    comment.push_back(absl::StrCat("Modes already profiled in sweep ",
                                   r.after_sweep_id(), ": ", profiled.size(),
                                   " (not proposed again); fit both with "
                                   "`powersweep fit --sweep ",
                                   r.after_sweep_id(), ",ID`."));
    if (!kept.empty()) {
      comment.push_back(absl::StrCat("Kept from sweep ", r.after_sweep_id(),
                                     ": ", kept, "."));
      out.add_notes(absl::StrCat("kept from sweep ", r.after_sweep_id(), ": ",
                                 kept));
    }
  }
  out.set_sweep_yaml(SweepYaml(out.sweep(), comment));
  if (r.after_sweep_id() != 0) {
    PS_ASSIGN_OR_RETURN(std::vector<v1::WorkloadModel> models,
                        store_->ListModels());
    absl::StatusOr<v1::WorkloadModel> current =
        SelectModel(models, PlanSelector(r));
    if (current.ok()) {
      *out.mutable_current_model() = *std::move(current);
    } else {
      out.add_notes(absl::StrCat("no model of sweep ", r.after_sweep_id(),
                                 " yet: `powersweep fit --sweep ",
                                 r.after_sweep_id(),
                                 "` reports its cross-validated error"));
    }
  }
  if (r.device_class() == "host") {
    out.add_notes(absl::StrCat(
        "host space from ", caps.size(),
        " registered host device(s): cores 1..", space.cores(), ", ",
        space.spec().cpu_freqs_khz.size(), " CPU frequency steps"));
  }
  return out;
}

}  // namespace powersweep::modeling
