// Conversions between the modeling library's plain structs (fitted_model.h,
// cross_validation.h, predict.h, mode_space.h) and the v1 messages the
// store and the Control service carry (FittedModelData, ModeSpaceData,
// ModePrediction, PowerMode).
//
// Errors: FromProto is InvalidArgument for a stored model that is not a
// consistent FittedModel (fitted_model.h CheckFittedModel), naming the
// problem. Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_PROTO_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_PROTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "controller/modeling/cross_validation.h"
#include "controller/modeling/fitted_model.h"
#include "controller/modeling/predict.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::modeling {

// The knobs only (no preset).
v1::PowerMode ToPowerMode(const CustomMode& mode);
// The knobs of `mode`; its preset name is ignored.
CustomMode KnobsOf(const v1::PowerMode& mode);

// The chosen model of `selection` with its cross-validation and every
// candidate form.
v1::FittedModelData ToProto(const ModelSelection& selection);
// Back to the struct the predictor takes (cross-validation figures are
// not needed there and are dropped).
absl::StatusOr<FittedModel> FromProto(const v1::FittedModelData& data);

v1::ModeSpaceData ToProto(const ModeSpace& space);
// The space of `device_class` with the tables of `data`.
ModeSpace ToModeSpace(const std::string& device_class,
                      const v1::ModeSpaceData& data);

// The prediction's figures; bounds are 0 when it has no interval (never
// NaN). `level` is the predictor's interval level.
v1::ModePrediction ToProto(const ModePrediction& p, double level);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_PROTO_H_
