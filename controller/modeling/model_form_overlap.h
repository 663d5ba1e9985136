// Internal to model_form.cc: the "overlap" time form (model_form.h).
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_OVERLAP_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_OVERLAP_H_

#include <memory>

#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

std::unique_ptr<ModelForm> MakeOverlapForm();

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_OVERLAP_H_
