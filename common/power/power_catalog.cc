#include "common/power/power_catalog.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/power/study_modes.h"

namespace powersweep {
namespace {

std::string KnownList(const std::vector<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

}  // namespace

PowerCatalog PowerCatalog::Default() {
  std::vector<ClassEntry> entries;
  for (DeviceClassSpec& spec : BuiltInDeviceClasses()) {
    ClassEntry e;
    e.presets = BuiltInNvpmodelPresets(spec.name);
    const ModeSpace space(spec);
    for (const StudyMode& m : StudyModesOf(spec.name)) {
      e.presets.push_back(ToPreset(m, space));
    }
    e.spec = std::move(spec);
    entries.push_back(std::move(e));
  }
  return PowerCatalog(std::move(entries));
}

PowerCatalog::PowerCatalog(std::vector<ClassEntry> classes) {
  for (ClassEntry& e : classes) {
    std::string name = e.spec.name;
    classes_[name] = std::move(e);
  }
}

std::vector<std::string> PowerCatalog::ClassNames() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : classes_) names.push_back(name);
  return names;
}

const PowerCatalog::ClassEntry* PowerCatalog::Find(
    const std::string& device_class) const {
  auto it = classes_.find(device_class);
  return it == classes_.end() ? nullptr : &it->second;
}

absl::StatusOr<ModeSpace> PowerCatalog::Space(const std::string& device_class,
                                              int device_cores) const {
  const ClassEntry* e = Find(device_class);
  if (e == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown device class '",
                                            device_class, "' (known: ",
                                            KnownList(ClassNames()), ")"));
  }
  return ModeSpace(e->spec, device_cores);
}

std::vector<std::string> PowerCatalog::PresetNames(
    const std::string& device_class) const {
  std::vector<std::string> names;
  if (const ClassEntry* e = Find(device_class)) {
    for (const PresetMode& p : e->presets) names.push_back(p.name);
  }
  return names;
}

absl::StatusOr<PresetMode> PowerCatalog::FindPreset(
    const std::string& device_class, const std::string& name) const {
  const ClassEntry* e = Find(device_class);
  if (e == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown device class '",
                                            device_class, "' (known: ",
                                            KnownList(ClassNames()), ")"));
  }
  for (const PresetMode& p : e->presets) {
    if (p.name == name) return p;
  }
  return absl::NotFoundError(absl::StrCat("unknown preset '", name, "' for ",
                                          device_class, " (known: ",
                                          KnownList(PresetNames(device_class)),
                                          ")"));
}

}  // namespace powersweep
