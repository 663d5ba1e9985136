// Why a sweep's pending runs wait (`watch` and `top` show it): per device
// class (or per named device, for runs placed on devices), the runs that no
// device can take now and why not each device of it can: "2 runs wait for
// a xavier-nx: xavier-nx-twin-0 is drained", "3 runs wait for a nano:
// nano-twin-0 is offline (disconnected 4m10s ago)", "1 run waits for a
// xavier-agx: no xavier-agx device is registered". Runs with a device
// that could take them (connected, not drained, not failing; busy or
// about to be dispatched) are not stalled and get no line.
//
// Pure function; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CORE_SWEEP_WAITING_H_
#define POWERSWEEP_CONTROLLER_CORE_SWEEP_WAITING_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "powersweep/v1/control.pb.h"
#include "powersweep/v1/run.pb.h"

namespace powersweep {

// `pending`: the sweep's pending runs; `devices`: every listed device
// (Fleet::ListDevices: connected, drained, health, disconnected time).
std::vector<std::string> WaitingReasons(
    const std::vector<v1::RunSpec>& pending,
    const std::vector<v1::DeviceStatus>& devices, absl::Time now);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_SWEEP_WAITING_H_
