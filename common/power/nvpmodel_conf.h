// Parser for nvpmodel configuration files (/etc/nvpmodel.conf), the preset
// power modes a Jetson board ships with.
//
// Format (see /work/shared/reference/jetson-platform.md, "nvpmodel"):
//   # comment
//   < PARAM TYPE=CLOCK NAME=GPU >        maps a parameter to sysfs paths:
//   MAX_FREQ /sys/.../max_freq           ARG PATH lines
//   < POWER_MODEL ID=2 NAME=MODE_30W >   one block per mode:
//   CPU_ONLINE CORE_4 0                  PARAM ARG VALUE lines
//   CPU_A78_0 MAX_FREQ 1728000           (kHz; any CPU_* parameter is a
//   GPU MAX_FREQ 612000000                cluster) GPU/EMC in Hz
//   < PM_CONFIG DEFAULT=2 >              mandatory
//   < FAN_CONFIG DEFAULT=cool >          optional
// Lenient like the real files: spaces after '<', before '>' and around '='
// are optional, blank lines and '#' comments anywhere, unknown tags start a
// block whose lines are ignored, unknown parameters are kept as settings.
// Caps: -1 and 2147483647 mean "no cap", and so does 0 for a MAX_FREQ or
// MIN_FREQ (Xavier and Nano files write EMC MAX_FREQ 0); all become kNoCap.
// Errors are InvalidArgument "FILE:LINE: reason" ("FILE: reason" for what
// is missing from the whole file).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_NVPMODEL_CONF_H_
#define POWERSWEEP_COMMON_POWER_NVPMODEL_CONF_H_

#include <cstdint>
#include <map>
#include <string>

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/power/preset.h"

namespace powersweep {

struct NvpmodelParam {
  std::string type;                          // "FILE", "CLOCK"
  std::string name;                          // "GPU", "CPU_A78_0", ...
  std::map<std::string, std::string> paths;  // "MAX_FREQ" -> "/sys/..."
  int line = 0;
};

struct NvpmodelSetting {
  std::string param, arg, value;
  int line = 0;
};

struct NvpmodelMode {
  int id = -1;
  std::string name;
  int line = 0;  // line of the POWER_MODEL tag
  std::map<int, bool> cores_online;            // CORE_N -> online
  std::map<std::string, int64_t> cpu_max_khz;  // by cluster parameter
  std::map<std::string, int64_t> cpu_min_khz;
  int64_t gpu_max_hz = kKnobUnset;
  int64_t gpu_min_hz = kKnobUnset;
  int64_t emc_max_hz = kKnobUnset;
  int64_t tpc_pg_mask = -1;                   // -1 = not set
  std::vector<NvpmodelSetting> settings;      // every line, in file order

  // Cores set online; 0 when the mode has no CPU_ONLINE lines.
  int OnlineCores() const;
  // Over the clusters: kNoCap if any is uncapped, else the highest cap;
  // kKnobUnset when no cluster has one.
  int64_t CpuMaxKhz() const;
  int64_t CpuMinKhz() const;
  PresetMode ToPreset() const;
};

struct NvpmodelConf {
  std::vector<NvpmodelParam> params;
  std::vector<NvpmodelMode> modes;  // in file order
  int default_id = -1;
  std::string fan_default;          // "" when there is no FAN_CONFIG

  const NvpmodelMode* FindById(int id) const;
  const NvpmodelMode* FindByName(const std::string& name) const;
  // The modes as presets, sorted by id.
  std::vector<PresetMode> Presets() const;
};

// Whether PARAM `param` ARG `arg` is the GPU power-gating mask
// (TPC_POWER_GATING TPC_PG_MASK on Orin).
bool IsPgMask(absl::string_view param, absl::string_view arg);

// `source` names the text in error messages ("/etc/nvpmodel.conf").
absl::StatusOr<NvpmodelConf> ParseNvpmodelConf(absl::string_view text,
                                               absl::string_view source);
// Reads and parses a file; NotFound / PermissionDenied naming the path.
absl::StatusOr<NvpmodelConf> ReadNvpmodelConf(const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_NVPMODEL_CONF_H_
