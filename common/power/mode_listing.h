// Proto adapters of the power-mode catalog: what Control.ListModes answers
// for one device (its class's presets and the size of its custom mode
// space), and conversions between v1 messages and common/power types.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_MODE_LISTING_H_
#define POWERSWEEP_COMMON_POWER_MODE_LISTING_H_

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "common/power/power_catalog.h"
#include "common/power/preset.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

// The presets of the device's class and its custom space. A class with no
// fixed core count (host) takes the device's capabilities.cpu_cores.
// NotFound naming the device when its class is not in the catalog.
absl::StatusOr<::powersweep::v1::ListModesResponse> ListModesFor(
    const ::powersweep::v1::DeviceStatus& device, const PowerCatalog& catalog);

::powersweep::v1::PowerModePreset ToProto(const PresetMode& preset);

// The explicit knobs of a PowerMode (the preset name is not looked at).
CustomMode ToCustomMode(const ::powersweep::v1::PowerMode& mode);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_MODE_LISTING_H_
