// Power modes of a twin: resolving a PowerMode against the class tables,
// and filling a TelemetrySample from an operating point and a load.
//
// ResolvePowerMode: the base point is the class maximum (MAXN), or the
// named preset from the shared power-mode catalog (common/power: nvpmodel
// presets and study modes) with each cap resolved to the highest table
// step under it, as the kernel does (uncapped or unset knobs: the class
// maximum). Every non-zero knob of `mode` overrides the base and must be a
// value of the class's table. InvalidArgument names each offending field
// with the nearest valid values. `notes` (optional) gets a line per cap
// that was not itself a table step.
//
// FillTwinSample: per-core utilization and frequency, CPU mean, GPU
// utilization and frequency, EMC frequency, memory, rails and total power from the power
// model, every power value marked PROVENANCE_SIMULATED.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_MODE_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_MODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/platform/twin/perf_model.h"
#include "agent/platform/twin/twin_class.h"
#include "agent/platform/twin/twin_random.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

class PowerCatalog;  // common/power/power_catalog.h (kept out of this header)

// Memory the simulated OS uses, without a workload.
inline constexpr int64_t kTwinOsMemoryBytes = int64_t{1200} << 20;

absl::StatusOr<OperatingPoint> ResolvePowerMode(
    const TwinClass& cls, const PowerCatalog& catalog,
    const v1::PowerMode& mode, std::vector<std::string>* notes = nullptr);

// The PowerMode form of a point (preset name kept from `requested`).
v1::PowerMode ToPowerMode(const OperatingPoint& op,
                          const v1::PowerMode& requested);

// The name of the twin's one (simulated) temperature sensor.
inline constexpr char kTwinThermalZone[] = "twin-therm";

// Fills `sample` (t_s, process fields untouched; cores and temperatures
// replaced) and returns the total power in mW. The temperature is the
// instance's ambient plus the class's degrees per watt times the power.

double FillTwinSample(const TwinClass& cls, const InstanceVariation& variation,
                      const OperatingPoint& op, const PhaseLoad& load,
                      v1::TelemetrySample* sample);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_MODE_H_
