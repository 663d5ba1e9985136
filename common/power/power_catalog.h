// PowerCatalog: per device class, its mode space (mode_space.h) and its
// named modes: the nvpmodel presets (preset.h) followed by the study modes
// (study_modes.h). This is what sweeps resolve a `preset` name against, on
// the controller (validation) and on the agent (applying a named mode).
//
// Immutable after construction; safe to share between threads.
#ifndef POWERSWEEP_COMMON_POWER_POWER_CATALOG_H_
#define POWERSWEEP_COMMON_POWER_POWER_CATALOG_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/power/mode_space.h"
#include "common/power/preset.h"

namespace powersweep {

class PowerCatalog {
 public:
  struct ClassEntry {
    DeviceClassSpec spec;
    std::vector<PresetMode> presets;  // nvpmodel first (by id), then studies
  };

  // The built-in classes with their built-in nvpmodel presets and every
  // study mode of the class.
  static PowerCatalog Default();

  explicit PowerCatalog(std::vector<ClassEntry> classes);

  // Sorted class names.
  std::vector<std::string> ClassNames() const;
  // nullptr when the class is unknown.
  const ClassEntry* Find(const std::string& device_class) const;
  // NotFound "unknown device class 'tx2' (known: host, nano, ...)".
  absl::StatusOr<ModeSpace> Space(const std::string& device_class,
                                  int device_cores = 0) const;
  // Preset names of the class in catalog order (empty for unknown classes).
  std::vector<std::string> PresetNames(const std::string& device_class) const;
  // NotFound "unknown preset 'TURBO' for orin-agx (known: MAXN, ...)", or
  // naming the unknown class.
  absl::StatusOr<PresetMode> FindPreset(const std::string& device_class,
                                        const std::string& name) const;

 private:
  std::map<std::string, ClassEntry> classes_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_POWER_CATALOG_H_
