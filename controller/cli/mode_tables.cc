#include "controller/cli/mode_tables.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace powersweep {

std::string PresetKnobMhz(int64_t value, int64_t per_mhz) {
  if (value == 0) return "-";
  if (value < 0) return "max";
  std::string s = absl::StrFormat("%.3f", static_cast<double>(value) /
                                              static_cast<double>(per_mhz));
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

Table ModesTable(const v1::ListModesResponse& modes) {
  Table t;
  t.header = {"preset", "source", "id",      "kind",   "cores",
              "cpu_mhz", "gpu_mhz", "emc_mhz", "note"};
  t.numeric = {false, false, true, false, true, false, false, false, false};
  for (const v1::PowerModePreset& p : modes.presets()) {
    std::string note = p.note();
    if (p.gpu_pg_mask_known()) {
      // Modes of another GPU power gating: a board switches only by reboot.
      std::vector<std::string> others;
      for (const v1::PowerModePreset& o : modes.presets()) {
        if (o.gpu_pg_mask_known() && o.gpu_pg_mask() != p.gpu_pg_mask()) {
          others.push_back(o.name());
        }
      }
      if (!others.empty()) {
        absl::StrAppend(&note, note.empty() ? "" : "; ",
                        "reboot to or from ", absl::StrJoin(others, ", "),
                        " (GPU power-gating mask ", p.gpu_pg_mask(), ")");
      }
    }
    t.rows.push_back(
        {p.name(), p.source(),
         p.nvpmodel_id() >= 0 ? std::to_string(p.nvpmodel_id()) : "-",
         p.fixed() ? "fixed" : "cap",
         p.cpu_cores() > 0 ? std::to_string(p.cpu_cores()) : "-",
         PresetKnobMhz(p.cpu_max_khz(), 1000),
         PresetKnobMhz(p.gpu_max_hz(), 1000000),
         PresetKnobMhz(p.mem_max_hz(), 1000000), note});
  }
  return t;
}

std::string CustomSpaceLine(const v1::ListModesResponse& modes) {
  int nvpmodel = 0;
  for (const v1::PowerModePreset& p : modes.presets()) {
    nvpmodel += p.source() == "nvpmodel";
  }
  const int studies = modes.presets_size() - nvpmodel;
  std::string line =
      modes.device_id().empty()
          ? absl::StrCat("class ", modes.device_class(), ": ")
          : absl::StrCat(modes.device_id(), " (", modes.device_class(), "): ");
  if (modes.presets_size() == 0) {
    absl::StrAppend(&line, "no presets");
  } else {
    absl::StrAppend(&line, nvpmodel, " nvpmodel presets, ", studies,
                    " study modes");
  }
  absl::StrAppend(&line, "; custom modes: ", modes.custom_space_size(), " = ",
                  modes.core_choices(), " core counts");
  std::vector<std::string> freqs;
  const std::pair<const char*, int> knobs[] = {
      {"CPU", modes.cpu_freq_choices()},
      {"GPU", modes.gpu_freq_choices()},
      {"EMC", modes.mem_freq_choices()}};
  for (const auto& [name, n] : knobs) {
    if (n > 0) freqs.push_back(absl::StrCat(n, " ", name));
  }
  if (freqs.empty()) {
    absl::StrAppend(&line, " (frequencies not settable)");
  } else {
    absl::StrAppend(&line, " x ", absl::StrJoin(freqs, " x "),
                    " frequencies");
  }
  return line;
}

std::string FrequencyLines(const v1::ListModesResponse& modes) {
  const struct {
    const char* name;
    const google::protobuf::RepeatedField<int64_t>& values;
    int64_t per_mhz;
  } knobs[] = {{"CPU", modes.cpu_freqs_khz(), 1000},
               {"GPU", modes.gpu_freqs_hz(), 1000000},
               {"EMC", modes.mem_freqs_hz(), 1000000}};
  std::string out;
  for (const auto& knob : knobs) {
    if (knob.values.empty()) continue;
    std::vector<std::string> mhz;
    for (int64_t v : knob.values) mhz.push_back(PresetKnobMhz(v, knob.per_mhz));
    absl::StrAppend(&out, knob.name, " MHz: ", absl::StrJoin(mhz, " "), "\n");
  }
  return out;
}

std::string HostGpuLine(const v1::DeviceCapabilities& caps) {
  if (caps.gpu_name().empty()) {
    return absl::StrCat("GPU: none (",
                        caps.gpu_note().empty() ? "no NVML" : caps.gpu_note(),
                        ")");
  }
  std::string line = absl::StrCat("GPU: ", caps.gpu_name());
  if (caps.gpu_power_limit_max_w() > 0) {
    absl::StrAppend(&line, "; gpu_power_limit_w ",
                    caps.gpu_power_limit_min_w(), "..",
                    caps.gpu_power_limit_max_w(), " W");
  }
  if (caps.gpu_freqs_hz_size() > 0) {
    absl::StrAppend(&line, "; gpu_freq_hz: ", caps.gpu_freqs_hz_size(),
                    " lockable SM clocks (GPU MHz above)");
  }
  if (!caps.gpu_note().empty()) {
    absl::StrAppend(&line, "; knobs not settable: ", caps.gpu_note());
  }
  return line;
}

}  // namespace powersweep
