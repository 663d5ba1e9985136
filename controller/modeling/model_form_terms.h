// Internal to model_form.cc: the forms linear in their parameters (a sum
// of terms, each used when every knob it needs varies): the time forms
// linear, reciprocal, reciprocal_cross, combined and the energy forms
// paper, power_x_time, power_util_x_time,
// power_util_mem_x_time (model_form.h).
#ifndef POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_TERMS_H_
#define POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_TERMS_H_

#include <memory>
#include <vector>

#include "controller/modeling/model_form.h"

namespace powersweep::modeling {

std::vector<std::unique_ptr<ModelForm>> MakeTermForms();

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_MODEL_FORM_TERMS_H_
