// tegrastats log importer: turns the lines NVIDIA's `tegrastats` prints on
// Jetson boards into TelemetrySamples, so years of existing logs can be
// stored and exported like the telemetry of a run.
//
// Formats (docs: ../shared/reference/jetson-platform.md):
// - JetPack 4 (Xavier AGX, Nano): rails without units as "NAME cur/avg"
//   (mW), e.g. "GPU 463/463", "POM_5V_IN 933/933"; "EMC_FREQ 0%" and
//   "CPU [0%,..]" without "@freq" when not run as root.
// - JetPack 5 (Orin AGX, Xavier NX): rails as "NAME 2390mW/2390mW",
//   "GR3D_FREQ 0%@0" or "0%@[114]".
// - JetPack 6 and 7 (Orin): "GR3D_FREQ 0%@[0,0]" or "0%@[1300,1300]" (one
//   frequency per GPC; the highest is kept), lower-case temperatures
//   ("cpu@52.562C").
// - Thor (JetPack 7): "GR3D_FREQ @[1575,1575,1575]" (three GPCs, no
//   utilisation: gpu_util is 0 and the line counts in
//   lines_without_gpu_util), "EMC_FREQ 0%@4266", no NVDLA fields; the
//   input rail is VIN.
// - JetPack 7.2 prints rails as current/average/maximum ("VDD_IN
//   3462mW/3522mW/3582mW") and temperatures as current/maximum
//   ("cpu@45.375C/45.812C"); the current values are kept.
// Every line may start with a date "MM-DD-YYYY HH:MM:SS" (newer tegrastats
// versions), read as UTC.
//
// Per line: RAM used/total (MB -> bytes), one CoreSample per CPU entry
// ("off" cores count as util 0, freq 0 and are left out of cpu_util),
// util 0..1 and freq MHz -> kHz; EMC frequency -> mem_freq_hz; GPU
// (GR3D) utilization and frequency; temperatures "NAME@VALUEC" (PMIC,
// which reads a constant 100 C, and sensors at -256 C, which are off, are
// skipped); every rail (current value, not the average) except "NC" with
// PROVENANCE_MEASURED; power_mw = the board's input rail when present
// (VDD_IN, POM_5V_IN or VIN: common/power/board_rails.h), else the sum of
// the rails (VIN_SYS_5V0 is never the total).
// Tokens it does not know (APE, NVENC, MTS, ...) are ignored.
//
// Timestamps: t_s is 0 at the first line. A dated line gets its date minus
// the first line's date; lines in the same second as the line before (the
// date has 1 s resolution) and undated lines get the previous t_s plus
// interval_ms, so t_s never goes back.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_IMPORTER_TEGRASTATS_H_
#define POWERSWEEP_CONTROLLER_IMPORTER_TEGRASTATS_H_

#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

struct TegrastatsLine {
  v1::TelemetrySample sample;  // t_s not set
  std::optional<absl::Time> date;
  // false when GR3D_FREQ printed no utilisation (Thor): gpu_util is 0,
  // not measured.
  bool gpu_util_reported = true;
};

// One line. InvalidArgument naming the line's problem when it is not a
// tegrastats line (no "RAM used/totalMB") or a known field is malformed.
absl::StatusOr<TegrastatsLine> ParseTegrastatsLine(absl::string_view line);

struct TegrastatsLog {
  std::vector<v1::TelemetrySample> samples;
  std::optional<absl::Time> first_date;
  int skipped_lines = 0;             // blank lines are not counted
  std::string first_problem;         // "line N: ..." of the first skipped
  int lines_without_gpu_util = 0;    // imported lines with no GPU util
};

// Every line of `in`; lines that do not parse are skipped and counted.
// InvalidArgument when interval_ms <= 0, or when no line parsed (naming
// the first problem).
absl::StatusOr<TegrastatsLog> ParseTegrastatsLog(std::istream& in,
                                                 double interval_ms);

// The file at `path`; NotFound naming it when it cannot be opened.
absl::StatusOr<TegrastatsLog> ReadTegrastatsFile(const std::string& path,
                                                 double interval_ms);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_IMPORTER_TEGRASTATS_H_
