// Named power modes ("presets") of a device class: the nvpmodel modes the
// boards ship with (caps) and the modes of published studies (pinned
// frequencies, see study_modes.h).
//
// Knob encoding, shared by every producer of presets:
//   kKnobUnset (0)  the source gives no value; the knob is left as it is
//   kNoCap (-1)     explicitly uncapped: up to the class maximum
//   > 0             the value (kHz for CPU, Hz for GPU and EMC)
//
// Plain values; the functions are pure and thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_PRESET_H_
#define POWERSWEEP_COMMON_POWER_PRESET_H_

#include <cstdint>
#include <string>
#include <vector>

namespace powersweep {

inline constexpr int64_t kKnobUnset = 0;
inline constexpr int64_t kNoCap = -1;

inline constexpr char kSourceNvpmodel[] = "nvpmodel";

struct PresetMode {
  std::string name;         // "MODE_30W", "PM1_CPU", "sigmetrics-a"
  std::string source;       // kSourceNvpmodel or a study id (study_modes.h)
  int nvpmodel_id = -1;     // -1: not an nvpmodel mode, or id not known
  // true: the values are pinned frequencies (min = max); false: caps.
  bool fixed = false;
  int cpu_cores = 0;        // cores online; 0 = not given
  int64_t cpu_max_khz = kKnobUnset;
  int64_t cpu_min_khz = kKnobUnset;
  int64_t gpu_max_hz = kKnobUnset;
  int64_t gpu_min_hz = kKnobUnset;
  int64_t mem_max_hz = kKnobUnset;
  // The GPU's TPC power-gating mask of an nvpmodel mode (-1: not given).
  // Boards apply a new mask only at boot: switching between two modes
  // whose masks differ needs a reboot (Orin's 7W, Thor's 90W and 70W).
  int64_t gpu_pg_mask = -1;
  std::string note;         // where values come from, values not given
};

// The nvpmodel presets each class ships with, by nvpmodel id, with the
// values /work/shared/reference/jetson-platform.md gives (knobs it does not
// give are kKnobUnset). Empty for host and unknown classes.
std::vector<PresetMode> BuiltInNvpmodelPresets(const std::string& device_class);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_PRESET_H_
