#include "common/power/study_modes.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

StudyMode Row(const char* name, const char* study, const char* label,
              const char* cls, int cores, double cpu, double gpu, double mem) {
  return StudyMode{name, study, label, cls, cores, cpu, gpu, mem};
}

// A published frequency in MHz mapped to the class table in `unit` per MHz
// (1000 for kHz, 1e6 for Hz). Appends "GPU 930.75 -> 918 MHz" to `moved`
// when the table has no such value.
int64_t Snap(const char* knob, double mhz, double unit,
             const std::vector<int64_t>& table,
             std::vector<std::string>* moved) {
  if (mhz <= 0) return kKnobUnset;
  const int64_t exact = std::llround(mhz * unit);
  if (table.empty()) return exact;
  const int64_t got = ClosestValue(table, exact);
  if (got != exact) {
    moved->push_back(absl::StrCat(knob, " ", mhz, " -> ", got / unit, " MHz"));
  }
  return got;
}

}  // namespace

std::vector<StudyMode> AllStudyModes() {
  const char* h = kStudyHipc;
  const char* s = kStudySigmetrics;
  return {
      // 000_f75dbf96ec34a564.txt, Table 3 (Label | CPU Cores | CPU MHz |
      // GPU MHz | RAM MHz). Each mode lowers one knob from MAXN.
      Row("hipc-MAXN", h, "MAXN", "orin-agx", 12, 2201.6, 1301, 3200),
      Row("PM1_CPU", h, "PM1_CPU", "orin-agx", 12, 1497.6, 1301, 3200),
      Row("PM2_GPU", h, "PM2_GPU", "orin-agx", 12, 2201.6, 930.75, 3200),
      Row("PM3_MEM", h, "PM3_MEM", "orin-agx", 12, 2201.6, 1301, 2133),
      // 001_0f96dde8420fe3b9.txt, Table 3 "Power Modes Evaluated" (Device
      // | Label | CPU Cores | CPU MHz | GPU MHz | RAM MHz). Row l is printed
      // "1" in the extracted text, row b as "Ь".
      Row("sigmetrics-a", s, "a", "xavier-agx", 4, 1200, 670, 1333),
      Row("sigmetrics-b", s, "b", "xavier-agx", 8, 1200, 670, 1333),
      Row("sigmetrics-c", s, "c", "xavier-agx", 8, 1200, 900, 1333),
      Row("sigmetrics-d", s, "d", "xavier-agx", 8, 1200, 900, 1600),
      Row("sigmetrics-e", s, "e", "xavier-agx", 8, 2100, 900, 1600),
      Row("sigmetrics-f", s, "f", "xavier-agx", 2, 2100, 900, 1600),
      Row("sigmetrics-g", s, "g (MAXN)", "xavier-agx", 8, 2265, 1377, 2133),
      Row("sigmetrics-h", s, "h", "xavier-agx", 8, 2265, 1377, 1066),
      Row("sigmetrics-i", s, "i", "xavier-agx", 8, 2265, 1377, 1333),
      Row("sigmetrics-j", s, "j", "xavier-agx", 8, 2265, 1377, 1600),
      Row("sigmetrics-k", s, "k", "xavier-agx", 4, 1036, 420, 2133),
      Row("sigmetrics-l", s, "l", "xavier-agx", 8, 1036, 420, 2133),
      Row("sigmetrics-m", s, "m", "xavier-agx", 8, 2265, 420, 2133),
      Row("sigmetrics-n", s, "n", "xavier-agx", 8, 2265, 900, 2133),
      Row("sigmetrics-nx-15W", s, "15W", "xavier-nx", 6, 1400, 1100, 1600),
      Row("sigmetrics-nano-MAXN", s, "MAXN", "nano", 4, 1479, 921, 1600),
      Row("sigmetrics-orin-MAXN", s, "MAXN", "orin-agx", 12, 2200, 1300, 3200),
  };
}

std::vector<StudyMode> StudyModesOf(const std::string& device_class) {
  std::vector<StudyMode> out;
  for (StudyMode& m : AllStudyModes()) {
    if (m.device_class == device_class) out.push_back(std::move(m));
  }
  return out;
}

PresetMode ToPreset(const StudyMode& mode, const ModeSpace& space) {
  const DeviceClassSpec& cls = space.spec();
  std::vector<std::string> moved;
  PresetMode p;
  p.name = mode.name;
  p.source = mode.study;
  p.fixed = true;
  p.cpu_cores = mode.cpu_cores;
  p.cpu_max_khz = p.cpu_min_khz =
      Snap("CPU", mode.cpu_mhz, 1e3, cls.cpu_freqs_khz, &moved);
  p.gpu_max_hz = p.gpu_min_hz =
      Snap("GPU", mode.gpu_mhz, 1e6, cls.gpu_freqs_hz, &moved);
  p.mem_max_hz = Snap("EMC", mode.mem_mhz, 1e6, cls.mem_freqs_hz, &moved);
  p.note = absl::StrCat(mode.study, " row ", mode.label);
  if (!moved.empty()) {
    absl::StrAppend(&p.note, "; nearest steps: ", absl::StrJoin(moved, ", "));
  }
  return p;
}

}  // namespace powersweep
