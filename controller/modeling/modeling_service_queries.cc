// ModelingService::Predict, Best and Pareto: answers from a stored model.
#include <algorithm>
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
  const std::string own_note = absl::StrCat(
      "the model of ", device_id, "'s runs alone (fitted per device)");
  if (selector.model_id() != 0) {
    // A model named by id is used as it is: a device's own model for that
    // device only, a class model with the device's offsets.
    v1::ModelSelector by_id;
    by_id.set_model_id(selector.model_id());
    PS_ASSIGN_OR_RETURN(std::vector<v1::WorkloadModel> models,
                        store->ListModels());
    for (const v1::WorkloadModel& m : models) {
      if (m.model_id() != selector.model_id()) continue;
      by_id.set_device_id(m.device_id());
      if (m.device_id().empty()) break;
      if (m.device_id() != device_id) {
        return absl::InvalidArgumentError(absl::StrCat(
            "device: model ", m.model_id(), " was fitted on ", m.device_id(),
            "'s runs alone, not ", device_id, "'s (name ", device_id,
            "'s own model, or a class model to scale by its offsets)"));
      }
      PS_ASSIGN_OR_RETURN(Loaded own, Load(store, by_id));
      own.device_note = own_note;
      return own;
    }
    selector = by_id;
  } else {
    selector.set_device_id(device_id);
    absl::StatusOr<Loaded> own = Load(store, selector);
    if (own.ok()) {
      own->device_note = own_note;
      return own;
    }
    if (!absl::IsNotFound(own.status())) return own.status();
    selector.clear_device_id();
  }
  PS_ASSIGN_OR_RETURN(Loaded l, Load(store, selector));
  PS_ASSIGN_OR_RETURN(std::vector<v1::DeviceOffset> offsets,
                      store->ListDeviceOffsets(device_id));
  PS_ASSIGN_OR_RETURN(DeviceScale scale, ScaleOf(device_id, offsets));
  l.device_note = scale.note;
  l.scale = std::move(scale);
  return l;
}

// The modes the model was fitted on with their measured means (scaled for
// the device), those with energy; FailedPrecondition when none has.
absl::StatusOr<std::vector<ModePoint>> MeasuredPoints(const Loaded& l) {
  std::vector<ModePoint> points;
  for (const v1::MeasuredMode& mm : l.model.measured()) {
    if (!(mm.epoch_energy_j() > 0)) continue;
    const double t = mm.epoch_time_s() * (l.scale ? l.scale->time : 1.0);
    const double e = mm.epoch_energy_j() * (l.scale ? l.scale->energy : 1.0);
    points.push_back(ModePoint{KnobsOf(mm.mode()), t, e, e / t});
  }
  if (points.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "model ", l.model.model_id(), ": no measured mode has energy"));
  }
  return points;
}

// A point as the response carries it: the prediction at its mode (from
// `all`, the whole space's, when it holds it), or with measured_only its
// measured figures without intervals.
v1::ModePrediction PointAsPrediction(const Loaded& l,
                                     const std::vector<ModePrediction>& all,
                                     bool measured_only, const ModePoint& p) {
  if (!measured_only) {
    // A mode the space cannot index (a stored space whose tables hold a
    // 0 enumerates one) is predicted on its own.
    absl::StatusOr<int64_t> index = l.space->IndexOf(p.mode);
    if (index.ok() && *index < static_cast<int64_t>(all.size())) {
      return Annotated(all[*index], l);
    }
    absl::StatusOr<v1::ModePrediction> pred = PredictAt(l, p.mode);
    if (pred.ok()) return *pred;
  }
  absl::StatusOr<v1::ModePrediction> pred = PredictAt(l, p.mode);
  v1::ModePrediction out = pred.ok() ? *pred : v1::ModePrediction();
  *out.mutable_mode() = ToPowerMode(p.mode);
  out.set_epoch_time_s(p.time_s);
  out.set_epoch_energy_j(p.energy_j);
  out.set_power_w(p.power_w);
  out.set_has_energy(true);
  out.set_has_interval(false);
  out.clear_epoch_time_lo_s();
  out.clear_epoch_time_hi_s();
  out.clear_epoch_energy_lo_j();
  out.clear_epoch_energy_hi_j();
  out.clear_power_lo_w();
  out.clear_power_hi_w();
  out.clear_interval_level();
  return out;
}

std::string MeasuredBasis(const Loaded& l) {
  return absl::StrCat("measured figures (means over runs) of the ",
                      l.model.measured_size(), " modes model ",
                      l.model.model_id(), " was fitted on; ", BasisOf(l));
}

// The best point under the request's one budget.
absl::StatusOr<ModePoint> PickUnderBudget(const std::vector<ModePoint>& points,
                                          const v1::BestRequest& request) {
  if (request.max_epoch_time_s() > 0) {
    return LeastEnergyWithinTime(points, request.max_epoch_time_s());
  }
  if (request.max_power_w() > 0) {
    return FastestWithinPower(points, request.max_power_w());
  }
  return FastestWithinEnergy(points, request.max_energy_j());
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
  if (request.candidates() < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "candidates: must be 0 or more, got ", request.candidates()));
  }
  if (request.measured_only() && request.conservative()) {
    return absl::InvalidArgumentError(
        "conservative: measured figures have no prediction interval; give "
        "measured_only or conservative, not both");
  }
  PS_ASSIGN_OR_RETURN(Loaded l,
                      LoadFor(store_, request.selector(), request.device_id()));
  if (absl::Status s = NeedEnergy(l, "best"); !s.ok()) return s;
  PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> all, PredictAll(l));
  std::vector<ModePoint> points;
  if (request.measured_only()) {
    PS_ASSIGN_OR_RETURN(points, MeasuredPoints(l));
  } else {
    points = ToPoints(all, request.conservative() ? Bound::kUpper
                                                   : Bound::kPredicted);
  }
  const std::string on =
      request.measured_only()
          ? " (measured: the modes the model was fitted on)"
      : request.conservative()
          ? absl::StrFormat(" (judged on the upper end of the %g%% "
                            "prediction interval)",
                            100 * l.predictor->level())
          : " (predicted)";
  std::string objective;
  if (request.max_epoch_time_s() > 0) {
    objective = absl::StrCat("least epoch energy with epoch time <= ",
                             Seconds(request.max_epoch_time_s()), on);
  } else if (request.max_power_w() > 0) {
    objective = absl::StrCat(
        "shortest epoch time with mean power over the minibatches <= ",
        absl::StrFormat("%g W", request.max_power_w()), on);
  } else {
    objective =
        absl::StrCat("shortest epoch time with epoch energy <= ",
                     absl::StrFormat("%g J", request.max_energy_j()), on);
  }
  absl::StatusOr<ModePoint> pick = PickUnderBudget(points, request);
  if (!pick.ok()) {
    return Prefixed(pick.status(),
                    absl::StrCat("model ", l.model.model_id(), " (",
                                 WorkloadLabel(l.model), "): "));
  }
  v1::BestResponse out;
  *out.mutable_best() =
      PointAsPrediction(l, all, request.measured_only(), *pick);
  // The next best under the same budget, each found with the ones before
  // it taken out.
  std::vector<ModePoint> rest = points;
  absl::StatusOr<ModePoint> next = pick;
  for (int i = 0; i < request.candidates() && next.ok(); ++i) {
    *out.add_candidates() =
        PointAsPrediction(l, all, request.measured_only(), *next);
    const CustomMode taken = next->mode;
    rest.erase(std::remove_if(rest.begin(), rest.end(),
                              [&](const ModePoint& p) {
                                return p.mode == taken;
                              }),
               rest.end());
    next = rest.empty() ? absl::NotFoundError("no mode left")
                        : PickUnderBudget(rest, request);
  }
  const DefaultMode def = DefaultModeOf(*l.space, catalog_);
  absl::StatusOr<int64_t> def_index = l.space->IndexOf(def.mode);
  if (def_index.ok()) {
    *out.mutable_default_mode() = Annotated((all)[*def_index], l);
    out.mutable_default_mode()->set_name(def.name);
  }
  out.set_objective(objective);
  out.set_modes_considered(static_cast<int64_t>(points.size()));
  out.set_basis(request.measured_only() ? MeasuredBasis(l) : BasisOf(l));
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
    PS_ASSIGN_OR_RETURN(points, MeasuredPoints(l));
  } else {
    PS_ASSIGN_OR_RETURN(std::vector<ModePrediction> predicted, PredictAll(l));
    all = std::move(predicted);
    points = ToPoints(all);
  }
  auto as_prediction = [&](const ModePoint& p) {
    return PointAsPrediction(l, all, request.measured_only(), p);
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
  out.set_basis(request.measured_only() ? MeasuredBasis(l) : BasisOf(l));
  *out.mutable_model() = std::move(l.model);
  return out;
}

}  // namespace powersweep::modeling
