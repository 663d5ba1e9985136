#include "agent/platform/twin/twin_mode.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/twin/power_model.h"
#include "common/power/mode_space.h"
#include "common/power/power_catalog.h"

namespace powersweep {
namespace {

void Knob(const std::string& field, int64_t value,
          const std::vector<int64_t>& table, const std::string& cls,
          int64_t* out, std::vector<std::string>* problems) {
  if (value == 0) return;
  if (!std::binary_search(table.begin(), table.end(), value)) {
    problems->push_back(absl::StrCat(
        field, ": ", value, " is not a frequency of ", cls,
        " (nearest: ", absl::StrJoin(NearestValues(table, value), ", "), ")"));
    return;
  }
  *out = value;
}

// A preset's cap: the highest table step at or under it (the lowest step
// when the cap is below the table); uncapped or unset: left at the maximum.
void Cap(const PresetMode& preset, const char* knob, int64_t cap,
         const std::vector<int64_t>& table, int64_t* out,
         std::vector<std::string>* notes) {
  if (cap <= 0 || table.empty()) return;
  auto above = std::upper_bound(table.begin(), table.end(), cap);
  *out = above == table.begin() ? table.front() : *(above - 1);
  if (*out != cap && notes != nullptr) {
    notes->push_back(absl::StrCat("preset ", preset.name, ": ", knob, " cap ",
                                  cap, " -> ", *out, " (table step)"));
  }
}

// A board switches to a mode whose GPU power gating differs from another
// mode's only through a reboot (Thor's 90W/70W, Orin NX's 10W/15W); a twin
// applies the clocks and says what it does not model.
void GatingNote(const PresetMode& preset, const PowerCatalog& catalog,
                const std::string& cls, std::vector<std::string>* notes) {
  const PowerCatalog::ClassEntry* entry = catalog.Find(cls);
  if (preset.gpu_pg_mask < 0 || entry == nullptr) return;
  for (const PresetMode& other : entry->presets) {
    if (other.gpu_pg_mask >= 0 && other.gpu_pg_mask != preset.gpu_pg_mask) {
      notes->push_back(absl::StrCat(
          "preset ", preset.name, ": GPU power-gating mask ",
          preset.gpu_pg_mask, " (", other.name, " has ", other.gpu_pg_mask,
          "): on a board switching to it needs a reboot; the twin applies "
          "its clocks and does not model the gated GPU units"));
      return;
    }
  }
}

}  // namespace

absl::StatusOr<OperatingPoint> ResolvePowerMode(
    const TwinClass& cls, const PowerCatalog& catalog,
    const v1::PowerMode& mode, std::vector<std::string>* notes) {
  OperatingPoint op = cls.Max();
  std::vector<std::string> problems;
  if (!mode.preset().empty()) {
    absl::StatusOr<PresetMode> preset =
        catalog.FindPreset(cls.name, mode.preset());
    if (!preset.ok()) {
      problems.push_back(absl::StrCat("preset: ", preset.status().message()));
    } else {
      if (preset->cpu_cores > 0) op.cores = std::min(preset->cpu_cores, cls.cores);
      Cap(*preset, "cpu", preset->cpu_max_khz, cls.cpu_freqs_khz, &op.cpu_khz,
          notes);
      Cap(*preset, "gpu", preset->gpu_max_hz, cls.gpu_freqs_hz, &op.gpu_hz,
          notes);
      Cap(*preset, "mem", preset->mem_max_hz, cls.mem_freqs_hz, &op.mem_hz,
          notes);
      GatingNote(*preset, catalog, cls.name, notes);
    }
  }
  if (mode.cpu_cores() < 0 || mode.cpu_cores() > cls.cores) {
    problems.push_back(absl::StrCat("cpu_cores: ", mode.cpu_cores(),
                                    " requested but ", cls.name, " has ",
                                    cls.cores, " cores"));
  } else if (mode.cpu_cores() > 0) {
    op.cores = mode.cpu_cores();
  }
  Knob("cpu_freq_khz", mode.cpu_freq_khz(), cls.cpu_freqs_khz, cls.name,
       &op.cpu_khz, &problems);
  Knob("gpu_freq_hz", mode.gpu_freq_hz(), cls.gpu_freqs_hz, cls.name,
       &op.gpu_hz, &problems);
  Knob("mem_freq_hz", mode.mem_freq_hz(), cls.mem_freqs_hz, cls.name,
       &op.mem_hz, &problems);
  if (!problems.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(problems, "; "));
  }
  return op;
}

v1::PowerMode ToPowerMode(const OperatingPoint& op,
                          const v1::PowerMode& requested) {
  v1::PowerMode m;
  m.set_preset(requested.preset());
  m.set_cpu_cores(op.cores);
  m.set_cpu_freq_khz(op.cpu_khz);
  m.set_gpu_freq_hz(op.gpu_hz);
  m.set_mem_freq_hz(op.mem_hz);
  return m;
}

double FillTwinSample(const TwinClass& cls, const InstanceVariation& variation,
                      const OperatingPoint& op, const PhaseLoad& load,
                      v1::TelemetrySample* sample) {
  sample->clear_cores();
  double sum = 0;
  for (int i = 0; i < op.cores; ++i) {
    const double util =
        i < static_cast<int>(load.core_util.size()) ? load.core_util[i] : 0;
    v1::CoreSample* core = sample->add_cores();
    core->set_util(util);
    core->set_freq_khz(op.cpu_khz);
    sum += util;
  }
  sample->set_cpu_util(op.cores > 0 ? sum / op.cores : 0);
  sample->set_mem_total_bytes(cls.memory_bytes);
  sample->set_mem_used_bytes(kTwinOsMemoryBytes);
  sample->set_gpu_util(load.gpu_util);
  sample->set_gpu_freq_hz(op.gpu_hz);
  // Every clock the twin simulates is recorded (telemetry.mem_freq_hz,
  // `top`'s emc_mhz); 0 (a class without an EMC table) stays unset.
  if (op.mem_hz > 0) sample->set_mem_freq_hz(op.mem_hz);
  const PowerBreakdown power = ModelPower(cls, variation, op, load);
  sample->clear_rails();
  for (const auto& [name, mw] : power.rails_mw) {
    v1::RailSample* rail = sample->add_rails();
    rail->set_name(name);
    rail->set_power_mw(mw);
    rail->set_provenance(v1::PROVENANCE_SIMULATED);
  }
  sample->set_power_mw(power.total_mw);
  sample->set_power_provenance(v1::PROVENANCE_SIMULATED);
  sample->clear_temperatures();
  v1::Temperature* temp = sample->add_temperatures();
  temp->set_name(kTwinThermalZone);
  temp->set_celsius(variation.ambient_c +
                    cls.power.thermal_c_per_w * power.total_mw * 1e-3);
  return power.total_mw;
}

}  // namespace powersweep
