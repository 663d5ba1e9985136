// Internal to sweep validation (validate.cc): the checks that depend on the
// device classes and the registered devices (power modes, runtimes, which
// classes can serve runs now). Each appends one line per problem to
// `problems` and user notes to `warnings`. Pure; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_DEVICES_H_
#define POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_DEVICES_H_

#include <string>
#include <vector>

#include "controller/sweep/validate.h"

namespace powersweep {

// Every power mode against every (known) device class of the sweep.
void CheckPowerModes(const v1::SweepSpec& spec, const ValidationContext& ctx,
                     std::vector<std::string>* problems,
                     std::vector<std::string>* warnings);

// Runtimes offered by the registered devices of each class.
void CheckRuntimeAvailability(const v1::SweepSpec& spec,
                              const ValidationContext& ctx,
                              std::vector<std::string>* problems);

// Warns about classes with no registered device.
void CheckDevicesRegistered(const v1::SweepSpec& spec,
                            const ValidationContext& ctx,
                            std::vector<std::string>* warnings);

// Warns about a model/dataset pair that no registered device of a class
// offers (it would wait until such a device connects), when the class has
// registered devices.
void CheckWorkloadsServed(const v1::SweepSpec& spec,
                          const ValidationContext& ctx,
                          std::vector<std::string>* warnings);

// The known classes named in spec.device_classes, each once, in order.
std::vector<const DeviceClassInfo*> KnownClassesOf(
    const v1::SweepSpec& spec, const ValidationContext& ctx);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_VALIDATE_DEVICES_H_
