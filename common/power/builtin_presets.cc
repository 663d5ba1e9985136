// Built-in nvpmodel presets (declared in preset.h), from
// /work/shared/reference/jetson-platform.md ("nvpmodel"). Where the
// reference gives no value the knob is kKnobUnset; where only the mode's
// name states the core count (MODE_30W_6CORE), cores come from the name.
// MAXN is "everything uncapped" on every board. Ids: Orin AGX and Xavier
// AGX as in their stock nvpmodel.conf (MAXN = 0); Xavier NX ids are not in
// the reference (-1); Nano MAXN = 0, 5W = 1.
#include "common/power/preset.h"

namespace powersweep {
namespace {

PresetMode Nv(int id, const char* name, int cores, int64_t cpu_max_khz,
              int64_t gpu_max_hz, int64_t mem_max_hz, const char* note = "") {
  PresetMode p;
  p.name = name;
  p.source = kSourceNvpmodel;
  p.nvpmodel_id = id;
  p.cpu_cores = cores;
  p.cpu_max_khz = cpu_max_khz;
  p.gpu_max_hz = gpu_max_hz;
  p.mem_max_hz = mem_max_hz;
  p.note = note;
  return p;
}

constexpr char kMaxn[] = "everything uncapped";
constexpr char kCoresFromName[] =
    "cores from the mode name; frequency caps not in the reference";

std::vector<PresetMode> Orin() {
  return {Nv(0, "MAXN", 12, kNoCap, kNoCap, kNoCap, kMaxn),
          Nv(1, "MODE_15W", 4, 1113600, 408000000, 2133000000),
          Nv(2, "MODE_30W", 8, 1728000, 612000000, kNoCap),
          Nv(3, "MODE_50W", 12, 1497600, 816000000, kKnobUnset,
             "EMC cap not in the reference")};
}

std::vector<PresetMode> XavierAgx() {
  PresetMode m10 = Nv(1, "MODE_10W", 2, 1200000, 520000000, 1065600000);
  m10.cpu_min_khz = 1200000;
  m10.gpu_min_hz = 318750000;
  PresetMode m15 = Nv(2, "MODE_15W", 4, 1200000, 670000000, 1331200000);
  m15.cpu_min_khz = 1200000;
  m15.gpu_min_hz = 318750000;
  return {Nv(0, "MAXN", 8, kNoCap, kNoCap, kNoCap, kMaxn),
          m10,
          m15,
          Nv(3, "MODE_30W_ALL", 8, kKnobUnset, kKnobUnset, kKnobUnset,
             kCoresFromName),
          Nv(4, "MODE_30W_6CORE", 6, kKnobUnset, kKnobUnset, kKnobUnset,
             kCoresFromName),
          Nv(5, "MODE_30W_4CORE", 4, kKnobUnset, kKnobUnset, kKnobUnset,
             kCoresFromName),
          Nv(6, "MODE_30W_2CORE", 2, kKnobUnset, kKnobUnset, kKnobUnset,
             kCoresFromName),
          Nv(7, "MODE_15W_DESKTOP", 0, kKnobUnset, kKnobUnset, kKnobUnset,
             "values not in the reference")};
}

std::vector<PresetMode> XavierNx() {
  std::vector<PresetMode> out = {
      Nv(-1, "MAXN", 6, kNoCap, kNoCap, kNoCap, kMaxn)};
  // Names of JetPack 4.6+/5 NX images (unverified in the reference).
  const std::pair<const char*, int> named[] = {
      {"MODE_10W_2CORE", 2}, {"MODE_10W_4CORE", 4}, {"MODE_15W_2CORE", 2},
      {"MODE_15W_4CORE", 4}, {"MODE_15W_6CORE", 6}, {"MODE_20W_2CORE", 2},
      {"MODE_20W_4CORE", 4}, {"MODE_20W_6CORE", 6}};
  for (const auto& [name, cores] : named) {
    out.push_back(Nv(-1, name, cores, kKnobUnset, kKnobUnset, kKnobUnset,
                     kCoresFromName));
  }
  return out;
}

std::vector<PresetMode> Nano() {
  return {Nv(0, "MAXN", 4, kNoCap, kNoCap, kNoCap, kMaxn),
          Nv(1, "5W", 0, kKnobUnset, kKnobUnset, kKnobUnset,
             "values not in the reference")};
}

}  // namespace

std::vector<PresetMode> BuiltInNvpmodelPresets(
    const std::string& device_class) {
  if (device_class == "orin-agx") return Orin();
  if (device_class == "xavier-agx") return XavierAgx();
  if (device_class == "xavier-nx") return XavierNx();
  if (device_class == "nano") return Nano();
  return {};
}

}  // namespace powersweep
