// The power-mode space a model of a device class predicts over, and how
// power modes (a run's, a query's, a preset) become points of it.
//
// Jetson classes: the shared catalog's tables (PowerCatalog::Space). host:
// the catalog gives no CPU frequency table (it differs per machine), so the
// space is built from the devices that ran the runs: cores up to the
// largest device's, CPU frequencies the union of the devices' steps
// (DeviceCapabilities.cpu_freqs_khz) and the frequencies the runs actually
// ran at; GPU and memory clocks do not exist there.
//
// Knob conventions: a knob that is 0 in a query means the class maximum
// (the twin's convention, and MAXN's on the Jetsons); a preset is resolved
// like the kernel does, each cap to the highest table step at or under it,
// uncapped or unset knobs to the maximum, and knobs set next to the preset
// override it.
//
// Errors name the field and the reason (ModeSpace::Check messages, with
// the nearest table values). Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_CLASS_SPACE_H_
#define POWERSWEEP_CONTROLLER_MODELING_CLASS_SPACE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "common/power/power_catalog.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep::modeling {

// NotFound for a class the catalog does not know; FailedPrecondition for
// host when neither a device nor an observed mode gives the core count.
absl::StatusOr<ModeSpace> ClassSpace(
    const std::string& device_class, const PowerCatalog& catalog,
    const std::vector<v1::DeviceCapabilities>& devices,
    const std::vector<CustomMode>& observed = {});

// Every knob the space can set and `mode` leaves 0 set to the maximum;
// knobs the space cannot set (empty table) set to 0.
CustomMode FillToMaximum(const CustomMode& mode, const ModeSpace& space);

// A preset of the class as a point of `space` (see the header comment).
// NotFound naming the preset and the known ones.
absl::StatusOr<CustomMode> ResolvePreset(const std::string& name,
                                         const ModeSpace& space,
                                         const PowerCatalog& catalog);

// A query's mode (preset and/or knobs, 0 = maximum) as a point of `space`;
// InvalidArgument "mode cores=16 gpu=500MHz is not a mode of xavier-agx:
// cpu_cores: 16 is more than ...".
absl::StatusOr<CustomMode> ResolveQueryMode(const v1::PowerMode& mode,
                                            const ModeSpace& space,
                                            const PowerCatalog& catalog);

// The mode a run ran at: the platform's applied mode (`actual`) when the
// result has one, else the requested mode with its preset resolved; knobs
// left 0 are the maximum (host: `device`'s cores and highest CPU step;
// without a device, 0 stays). host modes have no GPU or memory clock.
// `device` may be null.
absl::StatusOr<CustomMode> RunMode(const v1::RunSpec& spec,
                                   const v1::RunResult* result,
                                   const PowerCatalog& catalog,
                                   const v1::DeviceCapabilities* device);

struct DefaultMode {
  std::string name;  // "MAXN", or "all knobs at maximum"
  CustomMode mode;
};
// The class's default (fastest) mode: its MAXN preset when it has one,
// else every knob at its maximum.
DefaultMode DefaultModeOf(const ModeSpace& space, const PowerCatalog& catalog);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_CLASS_SPACE_H_
