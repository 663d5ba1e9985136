// Which power-monitor rail of a Jetson is the board's input, i.e. its total
// power: VDD_IN (Orin NX, Orin Nano, Xavier NX), POM_5V_IN (Nano, TX2) and
// VIN (Thor's INA238). Boards without one (Orin AGX, Xavier AGX) report the
// sum of their rails. One list for the agent's sysfs telemetry, the
// tegrastats importer and the docs (docs/jetson.md).
#ifndef POWERSWEEP_COMMON_POWER_BOARD_RAILS_H_
#define POWERSWEEP_COMMON_POWER_BOARD_RAILS_H_

#include "absl/strings/string_view.h"

namespace powersweep {

inline bool IsBoardInputRail(absl::string_view rail) {
  return rail == "VDD_IN" || rail == "POM_5V_IN" || rail == "VIN";
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_BOARD_RAILS_H_
