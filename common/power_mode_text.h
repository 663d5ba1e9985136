// A power mode as one line of text, as the CLI tables, model answers and
// comparison cells show it:
//   "MAXN cores=4 cpu=1190.4MHz gpu=1377MHz mem=2133MHz"
// the preset (if any), then the knobs that are set (0 = left as the device
// has it), frequencies in MHz. Stateless and thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_MODE_TEXT_H_
#define POWERSWEEP_COMMON_POWER_MODE_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

// `when_empty` when neither a preset nor a knob is set (each caller says
// what an empty mode means where it is shown, e.g. "as is").
std::string PowerModeText(const ::powersweep::v1::PowerMode& mode,
                          absl::string_view when_empty);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_MODE_TEXT_H_
