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
#include "controller/modeling/class_space.h"
#include "controller/modeling/fit.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/model_selector.h"
#include "controller/modeling/model_text.h"
#include "controller/modeling/observations.h"
#include "controller/modeling/plan.h"
#include "controller/modeling/predict.h"
#include "controller/modeling/profiling_sweep.h"
#include "controller/modeling/queries.h"
#include "controller/modeling/workload_fit.h"

namespace powersweep::modeling {
namespace {

// A stored model ready to predict: its predictor and its space.
struct Loaded {
  v1::WorkloadModel model;
  std::optional<Predictor> predictor;
  std::optional<ModeSpace> space;
};

absl::Status Prefixed(const absl::Status& s, const std::string& prefix) {
  return absl::Status(s.code(), absl::StrCat(prefix, s.message()));
}

// The measured figures at `mode`, or null.
const v1::MeasuredMode* MeasuredAt(const v1::WorkloadModel& m,
                                   const CustomMode& mode) {
  for (const v1::MeasuredMode& mm : m.measured()) {
    if (KnobsOf(mm.mode()) == mode) return &mm;
  }
  return nullptr;
}

// A prediction as the response carries it: figures, space index, and the
// measured means when the model was fitted at the mode.
v1::ModePrediction Annotated(const ModePrediction& p, const Loaded& l) {
  v1::ModePrediction out = ToProto(p, l.predictor->level());
  absl::StatusOr<int64_t> index = l.space->IndexOf(p.mode);
  out.set_space_index(index.ok() ? *index : -1);
  if (const v1::MeasuredMode* mm = MeasuredAt(l.model, p.mode)) {
    out.set_measured(true);
    out.set_measured_epoch_time_s(mm->epoch_time_s());
    out.set_measured_epoch_energy_j(mm->epoch_energy_j());
  }
  return out;
}

absl::StatusOr<v1::ModePrediction> PredictAt(const Loaded& l,
                                             const CustomMode& mode) {
  PS_ASSIGN_OR_RETURN(ModePrediction p, l.predictor->Predict(mode));
  return Annotated(p, l);
}

absl::Status NeedEnergy(const Loaded& l, const std::string& what) {
  if (l.model.has_energy_model()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      what, " needs an energy model; model ", l.model.model_id(), " (",
      WorkloadLabel(l.model), ") has none: ",
      l.model.notes().empty() ? "its runs had no energy readings"
                              : l.model.notes(l.model.notes_size() - 1)));
}

std::string Seconds(double s) { return absl::StrFormat("%.6g s", s); }

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

ModelingService::ModelingService(Store* store, Clock* clock,
                                 PowerCatalog catalog)
    : store_(store), clock_(clock), catalog_(std::move(catalog)) {}

absl::StatusOr<v1::FitModelsResponse> ModelingService::FitModels(
    const v1::FitModelsRequest& request) {
  if (request.sweep_id() <= 0) {
    return absl::InvalidArgumentError(
        "sweep_id: a positive sweep id is required");
  }
  PS_ASSIGN_OR_RETURN(
      SweepObservations obs,
      CollectObservations(store_, request.sweep_id(), catalog_));
  v1::FitModelsResponse out;
  for (const std::string& s : obs.skipped) out.add_skipped(s);
  if (obs.groups.empty()) {
    out.add_problems(absl::StrCat("sweep ", request.sweep_id(),
                                  " has no done run with minibatch records "
                                  "to fit"));
  }
  const absl::Time now = clock_->Now();
  for (const ObservationGroup& g : obs.groups) {
    absl::StatusOr<v1::WorkloadModel> m =
        FitWorkload(g, request.sweep_id(), catalog_, now);
    if (!m.ok()) {
      out.add_problems(std::string(m.status().message()));
      continue;
    }
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
    const v1::ModelSelector& s = request.selector();
    if (s.model_id() != 0 && s.model_id() != m.model_id()) continue;
    if (!Matches(m, s)) continue;
    *out.add_models() = std::move(m);
  }
  return out;
}

namespace {

absl::StatusOr<Loaded> Load(Store* store, const v1::ModelSelector& selector) {
  PS_ASSIGN_OR_RETURN(std::vector<v1::WorkloadModel> models,
                      store->ListModels());
  PS_ASSIGN_OR_RETURN(v1::WorkloadModel m, SelectModel(models, selector));
  Loaded l;
  l.model = std::move(m);
  const std::string prefix = absl::StrCat("model ", l.model.model_id(), ": ");
  absl::StatusOr<FittedModel> time = FromProto(l.model.time_model());
  if (!time.ok()) return Prefixed(time.status(), prefix);
  std::optional<FittedModel> energy;
  if (l.model.has_energy_model()) {
    absl::StatusOr<FittedModel> e = FromProto(l.model.energy_model());
    if (!e.ok()) return Prefixed(e.status(), prefix);
    energy = *std::move(e);
  }
  absl::StatusOr<Predictor> p = Predictor::Create(*std::move(time), energy);
  if (!p.ok()) return Prefixed(p.status(), prefix);
  l.predictor = *std::move(p);
  l.space = ToModeSpace(l.model.device_class(), l.model.space());
  if (l.space->Size() <= 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(prefix, "its mode space is empty"));
  }
  return l;
}

}  // namespace

absl::StatusOr<v1::PredictResponse> ModelingService::Predict(
    const v1::PredictRequest& request) {
  if (request.modes().empty()) {
    return absl::InvalidArgumentError("modes: at least one mode is required");
  }
  PS_ASSIGN_OR_RETURN(Loaded l, Load(store_, request.selector()));
  v1::PredictResponse out;
  for (int i = 0; i < request.modes_size(); ++i) {
    const v1::PowerMode& asked = request.modes(i);
    absl::StatusOr<CustomMode> mode =
        ResolveQueryMode(asked, *l.space, catalog_);
    if (!mode.ok()) {
      return Prefixed(mode.status(), absl::StrCat("modes[", i, "]: "));
    }
    absl::StatusOr<v1::ModePrediction> p = PredictAt(l, *mode);
    if (!p.ok()) return Prefixed(p.status(), absl::StrCat("modes[", i, "]: "));
    p->set_name(asked.preset());
    *out.add_predictions() = *std::move(p);
  }
  out.set_basis(Basis(l.model));
  *out.mutable_model() = std::move(l.model);
  return out;
}

absl::StatusOr<v1::BestResponse> ModelingService::Best(
    const v1::BestRequest& request) {
  const double budgets[] = {request.max_epoch_time_s(), request.max_power_w(),
                            request.max_energy_j()};
  int given = 0;
  for (double b : budgets) {
    if (b != 0) ++given;
    if (b < 0 || !std::isfinite(b)) {
      return absl::InvalidArgumentError(
          absl::StrCat("budget must be positive and finite, got ", b));
    }
  }
  if (given != 1) {
    return absl::InvalidArgumentError(
        "give exactly one budget: max_epoch_time_s, max_power_w or "
        "max_energy_j");
  }
  PS_ASSIGN_OR_RETURN(Loaded l, Load(store_, request.selector()));
  if (absl::Status s = NeedEnergy(l, "best"); !s.ok()) return s;
  PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> all,
                      l.predictor->PredictSpace(*l.space));
  const std::vector<ModePoint> points =
      ToPoints(all, request.conservative() ? Bound::kUpper : Bound::kPredicted);
  const std::string on = request.conservative()
                             ? absl::StrFormat(
                                   " (judged on the upper end of the %g%% "
                                   "prediction interval)",
                                   100 * l.predictor->level())
                             : " (predicted)";
  absl::StatusOr<ModePoint> pick;
  std::string objective;
  if (request.max_epoch_time_s() > 0) {
    pick = LeastEnergyWithinTime(points, request.max_epoch_time_s());
    objective = absl::StrCat("least epoch energy with epoch time <= ",
                             Seconds(request.max_epoch_time_s()), on);
  } else if (request.max_power_w() > 0) {
    pick = FastestWithinPower(points, request.max_power_w());
    objective =
        absl::StrCat("shortest epoch time with mean power <= ",
                     absl::StrFormat("%g W", request.max_power_w()), on);
  } else {
    pick = FastestWithinEnergy(points, request.max_energy_j());
    objective =
        absl::StrCat("shortest epoch time with epoch energy <= ",
                     absl::StrFormat("%g J", request.max_energy_j()), on);
  }
  if (!pick.ok()) {
    return Prefixed(pick.status(),
                    absl::StrCat("model ", l.model.model_id(), " (",
                                 WorkloadLabel(l.model), "): "));
  }
  v1::BestResponse out;
  PS_ASSIGN_OR_RETURN(int64_t index, l.space->IndexOf(pick->mode));
  *out.mutable_best() = Annotated((all)[index], l);
  const DefaultMode def = DefaultModeOf(*l.space, catalog_);
  absl::StatusOr<int64_t> def_index = l.space->IndexOf(def.mode);
  if (def_index.ok()) {
    *out.mutable_default_mode() = Annotated((all)[*def_index], l);
    out.mutable_default_mode()->set_name(def.name);
  }
  out.set_objective(objective);
  out.set_modes_considered(static_cast<int64_t>(all.size()));
  out.set_basis(Basis(l.model));
  *out.mutable_model() = std::move(l.model);
  return out;
}

absl::StatusOr<v1::ParetoResponse> ModelingService::Pareto(
    const v1::ParetoRequest& request) {
  PS_ASSIGN_OR_RETURN(Loaded l, Load(store_, request.selector()));
  if (absl::Status s = NeedEnergy(l, "pareto"); !s.ok()) return s;
  v1::ParetoResponse out;
  const DefaultMode def = DefaultModeOf(*l.space, catalog_);
  out.set_default_mode_name(def.name);
  std::vector<ModePoint> points;
  std::vector<ModePrediction> all;
  if (request.measured_only()) {
    for (const v1::MeasuredMode& mm : l.model.measured()) {
      if (!(mm.epoch_energy_j() > 0)) continue;
      points.push_back(ModePoint{KnobsOf(mm.mode()), mm.epoch_time_s(),
                                 mm.epoch_energy_j(),
                                 mm.epoch_energy_j() / mm.epoch_time_s()});
    }
    if (points.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "model ", l.model.model_id(), ": no measured mode has energy"));
    }
  } else {
    PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> predicted,
                        l.predictor->PredictSpace(*l.space));
    all = std::move(predicted);
    points = ToPoints(all);
  }
  // A measured point as a ModePrediction: its measured figures.
  auto as_prediction = [&](const ModePoint& p) -> v1::ModePrediction {
    if (!request.measured_only()) {
      return Annotated(all[*l.space->IndexOf(p.mode)], l);
    }
    absl::StatusOr<v1::ModePrediction> pred = PredictAt(l, p.mode);
    v1::ModePrediction out_p = pred.ok() ? *pred : v1::ModePrediction();
    *out_p.mutable_mode() = ToPowerMode(p.mode);
    out_p.set_epoch_time_s(p.time_s);
    out_p.set_epoch_energy_j(p.energy_j);
    out_p.set_power_w(p.power_w);
    out_p.set_has_energy(true);
    out_p.set_has_interval(false);
    out_p.clear_epoch_time_lo_s();
    out_p.clear_epoch_time_hi_s();
    out_p.clear_epoch_energy_lo_j();
    out_p.clear_epoch_energy_hi_j();
    out_p.clear_power_lo_w();
    out_p.clear_power_hi_w();
    out_p.clear_interval_level();
    return out_p;
  };
  for (const ModePoint& p : ParetoFront(points)) {
    *out.add_front() = as_prediction(p);
  }
  out.set_modes_considered(static_cast<int64_t>(points.size()));
  absl::StatusOr<FrontMembership> member = CheckOnFront(points, def.mode);
  if (member.ok()) {
    out.set_default_evaluated(true);
    out.set_default_on_front(member->on_front);
    *out.mutable_default_mode() = as_prediction(member->point);
    if (member->dominated_by.has_value()) {
      *out.mutable_default_dominated_by() =
          as_prediction(*member->dominated_by);
    }
  } else {
    absl::StatusOr<v1::ModePrediction> p = PredictAt(l, def.mode);
    if (p.ok()) *out.mutable_default_mode() = *p;
  }
  out.mutable_default_mode()->set_name(def.name);
  out.set_basis(request.measured_only()
                    ? absl::StrCat("measured figures (means over runs) of the ",
                                   l.model.measured_size(), " modes model ",
                                   l.model.model_id(), " was fitted on; ",
                                   Basis(l.model))
                    : Basis(l.model));
  *out.mutable_model() = std::move(l.model);
  return out;
}

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
                                   " (not proposed again)."));
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
