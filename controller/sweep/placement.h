// Placement of a sweep's runs on device instances: which devices each
// class's runs may go to (`devices`), and whether every run of the matrix
// runs once on each of them (`placement: every_device`).
//
// ResolvePlacement checks `devices` and `placement` against the devices
// the controller knows and appends one line per problem, naming the field:
//   devices[1]: unknown device 'orin-09' (known: orin-01, orin-02)
//   devices[0]: 'nano-01' is a nano, not one of device_classes (orin-agx)
//   placement: every_device needs devices of class orin-agx: list them in
//     devices, or connect one (none is connected)
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_PLACEMENT_H_
#define POWERSWEEP_CONTROLLER_SWEEP_PLACEMENT_H_

#include <map>
#include <string>
#include <vector>

#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/sweep.pb.h"

namespace powersweep {

struct DevicePlacement {
  // device class -> the device ids its runs may go to, in the order the
  // sweep lists them (or, for every_device without a list, the connected
  // devices of the class in id order). A class not in the map: any device.
  std::map<std::string, std::vector<std::string>> devices;
  // Each run of a class is expanded once per device of `devices[class]`.
  bool every_device = false;
};

// The placement of `spec` (defaults filled). Problems are appended to
// `problems` (may be null when the spec is known to be valid).
DevicePlacement ResolvePlacement(const v1::SweepSpec& spec,
                                 const std::vector<v1::DeviceStatus>& known,
                                 std::vector<std::string>* problems);

// A sweep that lists devices but no device_classes runs on the classes of
// those devices (known ones, in the order first listed). Other specs are
// returned unchanged.
v1::SweepSpec WithClassesOfDevices(const v1::SweepSpec& spec,
                                   const std::vector<v1::DeviceStatus>& known);

// The settle block's problems ("settle.temp_band_c: must be between 0 and
// 50, got 80"), appended to `problems`.
void CheckSettle(const v1::SweepSpec& spec, std::vector<std::string>* problems);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_PLACEMENT_H_
