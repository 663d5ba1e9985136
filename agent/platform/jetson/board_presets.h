// The named power modes of a discovered Jetson board, and the resolver the
// platform applies a sweep's `preset` through.
//
// Sources, in order: the board's own /etc/nvpmodel.conf (under the sysfs
// root) when it exists and parses; otherwise the built-in nvpmodel presets
// of the class (common/power/builtin_presets.cc); then the study modes of
// the class (HiPC, SIGMETRICS; common/power/study_modes.h). A name found in
// an earlier source wins.
//
// Turning a preset into knobs for this board: a cap or a pinned study
// frequency is passed as it is (PlanMode snaps it down to the board's table
// and records a note in the applied mode); "no cap" (-1) becomes the
// table's maximum; a knob the preset does not give stays 0 (left as the
// board has it).
//
// Pure functions over SysfsIo; thread-safe when the SysfsIo is.
#ifndef POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_PRESETS_H_
#define POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_PRESETS_H_

#include <string>
#include <vector>

#include "agent/platform/jetson/apply.h"
#include "agent/platform/jetson/discovery.h"
#include "agent/platform/jetson/sysfs_io.h"
#include "common/power/power_catalog.h"
#include "common/power/preset.h"

namespace powersweep {
namespace jetson {

inline constexpr char kNvpmodelConfPath[] = "/etc/nvpmodel.conf";
// nvpmodel's record of the mode it last set ("pmode:0001 fmode:...").
inline constexpr char kNvpmodelStatusPath[] = "/var/lib/nvpmodel/status";

struct BoardPresets {
  std::vector<PresetMode> modes;     // nvpmodel modes first, then studies
  std::string nvpmodel_source;       // resolved conf path, or "built-in"
  // What identifies the conf in use across boards: "/etc/nvpmodel.conf
  // fnv1a64:<hash of its content>", or "built-in".
  std::string nvpmodel_fingerprint;
  int nvpmodel_default_id = -1;      // PM_CONFIG DEFAULT; -1 when unknown
  std::vector<std::string> warnings;  // e.g. the conf did not parse
  // The GPU power-gating mask the board runs (-1: unknown) and where it was
  // read: the conf's power-gating file, else the mode in nvpmodel's status.
  int64_t current_pg_mask = -1;
  std::string current_pg_mask_source;
};

// Why `preset` cannot be applied without a reboot: its GPU power-gating
// mask is known and differs from the board's (Thor's 90W and 70W from MAXN
// or 120W; Orin NX 10W/15W from the others). "" when it can, or when either
// mask is unknown.
std::string RebootNeed(const PresetMode& preset, const BoardPresets& presets);

// Never fails: a missing or broken conf falls back to the built-in presets
// with a warning naming the file.
BoardPresets LoadBoardPresets(SysfsIo& io, const BoardInfo& board,
                              const PowerCatalog& catalog);

// The knobs of `preset` on `board` (see the header comment).
v1::PowerMode PresetKnobs(const PresetMode& preset, const BoardInfo& board);

// Resolves names over `presets.modes`; NotFound listing the known names;
// FailedPrecondition with RebootNeed's reason for a mode that needs a
// reboot.
PresetResolver MakePresetResolver(BoardPresets presets, BoardInfo board);

}  // namespace jetson
}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_JETSON_BOARD_PRESETS_H_
