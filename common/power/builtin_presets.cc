// Built-in nvpmodel presets (declared in preset.h), from
// /work/shared/reference/jetson-platform.md ("nvpmodel"). Where the
// reference gives no value the knob is kKnobUnset; where only the mode's
// name states the core count (MODE_30W_6CORE), cores come from the name.
// MAXN is "everything uncapped" on every board. Ids: Orin AGX and Xavier
// AGX as in their stock nvpmodel.conf (MAXN = 0); Xavier NX ids are not in
// the reference (-1); Nano MAXN = 0, 5W = 1. The 2026 classes (Orin NX and
// Orin Nano with JetPack 6.2's Super modes, Thor) follow the public
// sources listed in docs/jetson.md: NVIDIA's Super nvpmodel.conf files for
// Orin, `nvpmodel -q` output and published dumps for Thor.
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

PresetMode Masked(PresetMode p, int64_t gpu_pg_mask) {
  p.gpu_pg_mask = gpu_pg_mask;
  return p;
}

// nvpmodel_p3767_0000_super.conf (Orin NX 16 GB, JetPack 6.2); default 4.
// TPC_PG_MASK 240 = 4 TPCs, 252 = 2 TPCs: 10W and 15W need a reboot from
// the others.
std::vector<PresetMode> OrinNx() {
  return {Masked(Nv(0, "MAXN_SUPER", 8, kNoCap, kNoCap, kNoCap, kMaxn), 240),
          Masked(Nv(1, "10W", 4, 1190400, 612000000, 2133000000), 252),
          Masked(Nv(2, "15W", 4, 1420800, 612000000, kNoCap), 252),
          Masked(Nv(3, "25W", 8, 1497600, 408000000, kNoCap), 240),
          Masked(Nv(4, "40W", 8, 1497600, 1173000000, kNoCap), 240)};
}

// nvpmodel_p3767_0003_super.conf (Orin Nano 8 GB, JetPack 6.2); default 1.
// 7W (ID 3) is on real units and needs a reboot; its Super caps were not
// found: these are the pre-Super conf's 7W caps.
std::vector<PresetMode> OrinNano() {
  return {Masked(Nv(0, "15W", 6, 1497600, 612000000, 2133000000), 240),
          Masked(Nv(1, "25W", 6, 1344000, 918000000, 3199000000), 240),
          Masked(Nv(2, "MAXN_SUPER", 6, kNoCap, kNoCap, kNoCap, kMaxn), 240),
          Nv(3, "7W", 4, 960000, 408000000, 2133000000,
             "caps of the pre-Super 7W mode (the Super conf's were not "
             "found); needs a reboot from the other modes")};
}

// Thor T5000 (JetPack 7): IDs, names and default (120W) from real
// `nvpmodel -q`; modes 2 and 3 change the GPU power gating (10 -> 6 TPCs)
// and need a reboot (NVIDIA's nvpmodel prompts for one). Masks 64 / 15873
// and the caps of 90W and 70W are from one published characterisation,
// not from NVIDIA's conf (not public).
std::vector<PresetMode> Thor() {
  return {Masked(Nv(0, "MAXN", 14, kNoCap, kNoCap, kNoCap, kMaxn), 64),
          Masked(Nv(1, "120W", 14, kNoCap, 1386000000, kKnobUnset,
                    "GPU cap as measured under 120W, not from the conf"),
                 64),
          Masked(Nv(2, "90W", 12, kKnobUnset, kKnobUnset, kKnobUnset,
                    "caps not in public sources; needs a reboot from MAXN "
                    "or 120W"),
                 15873),
          Masked(Nv(3, "70W", 12, 1998000, kKnobUnset, kKnobUnset,
                    "CPU cap from a published spec sheet; needs a reboot "
                    "from MAXN or 120W"),
                 15873)};
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
  if (device_class == "orin-nx") return OrinNx();
  if (device_class == "orin-nano") return OrinNano();
  if (device_class == "thor") return Thor();
  return {};
}

}  // namespace powersweep
