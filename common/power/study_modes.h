// Named power modes of the studies this project automates
// (/work/shared/seeds/), with exactly the values their tables publish.
//
//   study "hipc-2023" (000_*.txt, HiPC 2023, Table 3, Orin AGX):
//     hipc-MAXN, PM1_CPU, PM2_GPU, PM3_MEM. The paper labels are kept, except
//     that its MAXN row is "hipc-MAXN" so it does not shadow nvpmodel's MAXN
//     (the study pins clocks at the table's values; nvpmodel MAXN only
//     lifts the caps).
//   study "sigmetrics-2023" (001_*.txt, SIGMETRICS 2023, Table 3):
//     Xavier AGX modes a..n as "sigmetrics-a" .. "sigmetrics-n" (g is the
//     paper's MAXN-equivalent), and the single rows of the other classes:
//     "sigmetrics-nx-15W" (Xavier NX), "sigmetrics-nano-MAXN" (Nano),
//     "sigmetrics-orin-MAXN" (Orin AGX).
//
// Published values are in MHz as printed (often rounded: "1200" for the
// 1190.4 MHz CPU step). ToPreset maps them onto the class tables (the
// closest settable value) and records every value that moved in the note,
// so a run states both what the paper said and what the board was set to.
// Every table row of these studies gives all four knobs; a knob a source
// did not give would be 0 here and left unset in the preset.
//
// Pure functions over built-in data; thread-safe.
#ifndef POWERSWEEP_COMMON_POWER_STUDY_MODES_H_
#define POWERSWEEP_COMMON_POWER_STUDY_MODES_H_

#include <string>
#include <vector>

#include "common/power/mode_space.h"
#include "common/power/preset.h"

namespace powersweep {

inline constexpr char kStudyHipc[] = "hipc-2023";
inline constexpr char kStudySigmetrics[] = "sigmetrics-2023";

struct StudyMode {
  std::string name;          // catalog name, e.g. "PM1_CPU", "sigmetrics-a"
  std::string study;         // kStudyHipc or kStudySigmetrics
  std::string label;         // the row label in the paper, e.g. "g (MAXN)"
  std::string device_class;  // "orin-agx", "xavier-agx", ...
  int cpu_cores = 0;         // 0 = not given
  double cpu_mhz = 0;        // as published; 0 = not given
  double gpu_mhz = 0;
  double mem_mhz = 0;
};

// Every study mode, HiPC rows first, then SIGMETRICS in table order.
std::vector<StudyMode> AllStudyModes();
// The study modes of one class, in the order of AllStudyModes().
std::vector<StudyMode> StudyModesOf(const std::string& device_class);

// The mode as a fixed preset of `space` (which must be its class): cores
// as published; each published frequency converted to kHz/Hz and mapped to
// the closest value of the class table (kept as published when the class
// has no table for that knob).
PresetMode ToPreset(const StudyMode& mode, const ModeSpace& space);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_POWER_STUDY_MODES_H_
