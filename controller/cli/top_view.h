// What `powersweep top` shows: one line about the fleet and its sweeps,
// then one row per registered device with its state, current run and the
// newest telemetry its agent reported (power and where it came from,
// hottest temperature, CPU and GPU utilization and clocks, memory clock,
// memory in use, how old the sample is). Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_TOP_VIEW_H_
#define POWERSWEEP_CONTROLLER_CLI_TOP_VIEW_H_

#include <string>

#include "absl/time/time.h"
#include "controller/cli/format.h"
#include "powersweep/v1/control.pb.h"

namespace powersweep {

// The device's state for the view: "offline", "FAILING", "drained",
// "run 12" (drained or failing while running: "run 12 (drained)"), "idle".
std::string TopState(const ::powersweep::v1::DeviceStatus& device);

// Columns: device, class, state, power_w, power_src, temp_c, cpu_pct,
// cpu_mhz (fastest core), gpu_pct, gpu_mhz, emc_mhz, mem_gib (used/total),
// sample_age_s. A device without a sample (offline, or an agent that
// reported none yet) has "-" in the telemetry columns.
Table TopTable(const ::powersweep::v1::ListDevicesResponse& devices,
               absl::Time now);

// "powersweep top  127.0.0.1:7070  12:03:04  4 devices: 3 connected,
//  2 running, 1 failing  |  sweep 3 'x': 7/16 done, 2 running"
std::string TopHeader(const std::string& controller,
                      const ::powersweep::v1::ListDevicesResponse& devices,
                      const ::powersweep::v1::ListSweepsResponse& sweeps,
                      absl::Time now, absl::TimeZone zone);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_TOP_VIEW_H_
