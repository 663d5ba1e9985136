// What `powersweep devices --modes DEVICE` prints: the device class's named
// power modes (nvpmodel presets and study modes), the size of its custom
// mode space and the frequencies a custom mode may set. Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CLI_MODE_TABLES_H_
#define POWERSWEEP_CONTROLLER_CLI_MODE_TABLES_H_

#include <cstdint>
#include <string>

#include "controller/cli/format.h"
#include "powersweep/v1/control.pb.h"

namespace powersweep {

// A knob of a preset in MHz: 0 -> "-" (not given), -1 -> "max" (no cap),
// 1190400 kHz with `per_mhz` 1000 -> "1190.4".
std::string PresetKnobMhz(int64_t value, int64_t per_mhz);

// One row per preset: preset, source, id, kind (cap|fixed), cores,
// cpu_mhz, gpu_mhz, emc_mhz, note.
Table ModesTable(const ::powersweep::v1::ListModesResponse& modes);

// "orin-0 (orin-agx): 4 nvpmodel presets, 7 study modes; custom modes:
//  3828 = 12 core counts x 29 CPU x 11 GPU x 3 EMC frequencies"
// Host: "...; custom modes: 2 = 2 core counts (frequencies not settable)".
std::string CustomSpaceLine(const ::powersweep::v1::ListModesResponse& modes);

// The settable frequencies in MHz, one line per knob that has any:
// "CPU MHz: 115.2 192 ... 2201.6\nGPU MHz: ...\n"; "" when none is settable.
std::string FrequencyLines(const ::powersweep::v1::ListModesResponse& modes);

// A host device's GPU (NVML) for `devices --modes`: "GPU: NAME;
// gpu_power_limit_w 200..700 W; ...", or "GPU: none (why)".
std::string HostGpuLine(const ::powersweep::v1::DeviceCapabilities& caps);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_MODE_TABLES_H_
