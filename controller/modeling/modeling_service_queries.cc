// ModelingService::Predict, Best and Pareto: answers from a stored model.
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
#include "controller/modeling/instances.h"
#include "controller/modeling/model_proto.h"
#include "controller/modeling/model_selector.h"
#include "controller/modeling/model_text.h"
#include "controller/modeling/modeling_service.h"
#include "controller/modeling/predict.h"
#include "controller/modeling/queries.h"

namespace powersweep::modeling {
namespace {

// A stored model ready to predict: its predictor and its space.
struct Loaded {
  v1::WorkloadModel model;
  std::optional<Predictor> predictor;
  std::optional<ModeSpace> space;
  // For a device without its own model: the class model times its offsets.
  std::optional<DeviceScale> scale;
  std::string device_note;  // how the device was taken into account
};

// Every prediction of `l` goes through this: the device's offsets.
ModePrediction Scaled(const Loaded& l, ModePrediction p) {
  if (l.scale) ApplyScale(*l.scale, &p);
  return p;
}

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
    out.set_measured_epoch_time_s(mm->epoch_time_s() *
                                  (l.scale ? l.scale->time : 1.0));
    out.set_measured_epoch_energy_j(mm->epoch_energy_j() *
                                    (l.scale ? l.scale->energy : 1.0));
  }
  return out;
}

absl::StatusOr<v1::ModePrediction> PredictAt(const Loaded& l,
                                             const CustomMode& mode) {
  PS_ASSIGN_OR_RETURN(ModePrediction p, l.predictor->Predict(mode));
  return Annotated(Scaled(l, p), l);
}

// The whole space, for the device when one was asked for.
absl::StatusOr<std::vector<ModePrediction>> PredictAll(const Loaded& l) {
  PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> all,
                      l.predictor->PredictSpace(*l.space));
  if (l.scale) {
    for (ModePrediction& p : all) ApplyScale(*l.scale, &p);
  }
  return all;
}

std::string BasisOf(const Loaded& l) {
  return l.device_note.empty() ? Basis(l.model)
                               : absl::StrCat(Basis(l.model), "; ",
                                              l.device_note);
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

// The model for `device_id` (empty: the selector's class model): the
// device's own model when one was fitted, else the class model with the
// device's calibration offsets.
absl::StatusOr<Loaded> LoadFor(Store* store, v1::ModelSelector selector,
                               const std::string& device_id) {
  if (device_id.empty()) return Load(store, selector);
  selector.set_device_id(device_id);
  absl::StatusOr<Loaded> own = Load(store, selector);
  if (own.ok()) {
    own->device_note = absl::StrCat("the model of ", device_id,
                                    "'s runs alone (fitted per device)");
    return own;
  }
  if (!absl::IsNotFound(own.status())) return own.status();
  selector.clear_device_id();
  PS_ASSIGN_OR_RETURN(Loaded l, Load(store, selector));
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceOffset> offsets,
                      store->ListDeviceOffsets(device_id));
  PS_ASSIGN_OR_RETURN(DeviceScale scale, ScaleOf(device_id, offsets));
  l.device_note = scale.note;
  l.scale = std::move(scale);
  return l;
}

}  // namespace

absl::StatusOr<v1::PredictResponse> ModelingService::Predict(
    const v1::PredictRequest& request) {
  if (request.modes().empty()) {
    return absl::InvalidArgumentError("modes: at least one mode is required");
  }
  PS_ASSIGN_OR_RETURN(Loaded l,
                      LoadFor(store_, request.selector(), request.device_id()));
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
  out.set_basis(BasisOf(l));
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
  PS_ASSIGN_OR_RETURN(Loaded l,
                      LoadFor(store_, request.selector(), request.device_id()));
  if (absl::Status s = NeedEnergy(l, "best"); !s.ok()) return s;
  PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> all, PredictAll(l));
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
  out.set_basis(BasisOf(l));
  *out.mutable_model() = std::move(l.model);
  return out;
}

absl::StatusOr<v1::ParetoResponse> ModelingService::Pareto(
    const v1::ParetoRequest& request) {
  PS_ASSIGN_OR_RETURN(Loaded l,
                      LoadFor(store_, request.selector(), request.device_id()));
  if (absl::Status s = NeedEnergy(l, "pareto"); !s.ok()) return s;
  v1::ParetoResponse out;
  const DefaultMode def = DefaultModeOf(*l.space, catalog_);
  out.set_default_mode_name(def.name);
  std::vector<ModePoint> points;
  std::vector<ModePrediction> all;
  if (request.measured_only()) {
    for (const v1::MeasuredMode& mm : l.model.measured()) {
      if (!(mm.epoch_energy_j() > 0)) continue;
      const double t = mm.epoch_time_s() * (l.scale ? l.scale->time : 1.0);
      const double e =
          mm.epoch_energy_j() * (l.scale ? l.scale->energy : 1.0);
      points.push_back(ModePoint{KnobsOf(mm.mode()), t, e, e / t});
    }
    if (points.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "model ", l.model.model_id(), ": no measured mode has energy"));
    }
  } else {
    PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> predicted, PredictAll(l));
    all = std::move(predicted);
    points = ToPoints(all);
  }
  // A measured point as a ModePrediction: its measured figures.
  auto as_prediction = [&](const ModePoint& p) -> v1::ModePrediction {
    if (!request.measured_only()) {
      // A mode the space cannot index (a stored space whose tables hold a
      // 0 enumerates one) is predicted on its own.
      absl::StatusOr<int64_t> index = l.space->IndexOf(p.mode);
      if (index.ok()) return Annotated(all[*index], l);
      absl::StatusOr<v1::ModePrediction> pred = PredictAt(l, p.mode);
      if (pred.ok()) return *pred;
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
                                   BasisOf(l))
                    : BasisOf(l));
  *out.mutable_model() = std::move(l.model);
  return out;
}

}  // namespace powersweep::modeling
