#include "agent/platform/jetson/board_presets.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/power/nvpmodel_conf.h"

namespace powersweep {
namespace jetson {
namespace {

// No cap: the table's maximum; unset: 0; a cap: as given (PlanMode snaps
// it to the table and notes it).
int64_t Capped(int64_t cap, const std::vector<int64_t>& table) {
  if (cap == kNoCap) return table.empty() ? 0 : table.back();
  return std::max<int64_t>(cap, 0);
}

// FNV-1a, 64 bits, in hex: stable across processes and builds, so two
// boards with the same conf file show the same value.
std::string ContentHash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return absl::StrFormat("%016x", h);
}

// "pmode:0002 fmode:quiet" -> 2; -1 when absent or malformed.
int StatusMode(const std::string& text) {
  const size_t at = text.find("pmode:");
  if (at == std::string::npos) return -1;
  int id = -1;
  const size_t b = at + 6;
  const size_t e = text.find_first_not_of("0123456789", b);
  if (!absl::SimpleAtoi(text.substr(b, e == std::string::npos ? e : e - b),
                        &id)) {
    return -1;
  }
  return id;
}

// The GPU power-gating mask the board runs now: read from the file the
// conf's power-gating PARAM names (Orin: /sys/devices/platform/gpu.0/
// tpc_pg_mask), else the mask of the mode nvpmodel last set
// (/var/lib/nvpmodel/status), else unknown.
void FindCurrentPgMask(SysfsIo& io, const NvpmodelConf* conf,
                       BoardPresets* out) {
  if (conf != nullptr) {
    for (const NvpmodelParam& param : conf->params) {
      for (const auto& [arg, path] : param.paths) {
        if (!IsPgMask(param.name, arg)) continue;
        absl::StatusOr<int64_t> mask = ReadInt(io, path);
        if (mask.ok()) {
          out->current_pg_mask = *mask;
          out->current_pg_mask_source = io.Resolve(path);
          return;
        }
      }
    }
  }
  const int id = StatusMode(ReadTextOr(io, kNvpmodelStatusPath));
  for (const PresetMode& p : out->modes) {
    if (id >= 0 && p.source == kSourceNvpmodel && p.nvpmodel_id == id &&
        p.gpu_pg_mask >= 0) {
      out->current_pg_mask = p.gpu_pg_mask;
      out->current_pg_mask_source = absl::StrCat(
          "mode ", id, " (", p.name, ") in ", io.Resolve(kNvpmodelStatusPath));
      return;
    }
  }
}

}  // namespace

std::string RebootNeed(const PresetMode& preset, const BoardPresets& presets) {
  if (preset.gpu_pg_mask < 0 || presets.current_pg_mask < 0 ||
      preset.gpu_pg_mask == presets.current_pg_mask) {
    return "";
  }
  return absl::StrCat(
      preset.name, " needs the GPU power-gating mask ", preset.gpu_pg_mask,
      " and this board runs ", presets.current_pg_mask, " (",
      presets.current_pg_mask_source,
      "): the mask changes only at boot, and the agent does not imitate it "
      "with clocks. Switch with `sudo nvpmodel -m ",
      preset.nvpmodel_id >= 0 ? absl::StrCat(preset.nvpmodel_id) : "<id>",
      "` and reboot, then run this mode's runs (a sweep of its own, or "
      "`powersweep rerun`)");
}

BoardPresets LoadBoardPresets(SysfsIo& io, const BoardInfo& board,
                              const PowerCatalog& catalog) {
  BoardPresets out;
  std::set<std::string> names;
  bool from_board = false;
  std::optional<NvpmodelConf> parsed;
  if (io.Exists(kNvpmodelConfPath)) {
    absl::StatusOr<std::string> text = io.Read(kNvpmodelConfPath);
    absl::StatusOr<NvpmodelConf> conf =
        text.ok() ? ParseNvpmodelConf(*text, io.Resolve(kNvpmodelConfPath))
                  : absl::StatusOr<NvpmodelConf>(text.status());
    if (conf.ok()) {
      from_board = true;
      out.nvpmodel_source = io.Resolve(kNvpmodelConfPath);
      out.nvpmodel_fingerprint =
          absl::StrCat(kNvpmodelConfPath, " fnv1a64:", ContentHash(*text));
      out.nvpmodel_default_id = conf->default_id;
      for (PresetMode& p : conf->Presets()) {
        names.insert(p.name);
        out.modes.push_back(std::move(p));
      }
      parsed = *std::move(conf);
    } else {
      out.warnings.push_back(
          absl::StrCat(conf.status().message(),
                       "; using the built-in nvpmodel presets of ",
                       board.device_class));
    }
  }
  if (!from_board) {
    out.nvpmodel_source = "built-in";
    out.nvpmodel_fingerprint = "built-in";
  }
  if (const PowerCatalog::ClassEntry* e = catalog.Find(board.device_class)) {
    for (const PresetMode& p : e->presets) {
      const bool nvpmodel = p.source == kSourceNvpmodel;
      if (nvpmodel && from_board) continue;
      if (!names.insert(p.name).second) continue;
      out.modes.push_back(p);
    }
  }
  FindCurrentPgMask(io, parsed ? &*parsed : nullptr, &out);
  return out;
}

v1::PowerMode PresetKnobs(const PresetMode& preset, const BoardInfo& board) {
  v1::PowerMode m;
  m.set_preset(preset.name);
  const int ncpu = static_cast<int>(board.cpus.size());
  if (preset.cpu_cores > 0) m.set_cpu_cores(std::min(preset.cpu_cores, ncpu));
  const std::vector<int64_t> no_table;
  const std::vector<int64_t>& cpu =
      board.clusters.empty() ? no_table : board.clusters[0].freqs_khz;
  m.set_cpu_freq_khz(Capped(preset.cpu_max_khz, cpu));
  m.set_gpu_freq_hz(Capped(preset.gpu_max_hz, board.gpu.freqs_hz));
  m.set_mem_freq_hz(Capped(preset.mem_max_hz, board.emc.rates_hz));
  return m;
}

PresetResolver MakePresetResolver(BoardPresets presets, BoardInfo board) {
  return [presets = std::move(presets), board = std::move(board)](
             const std::string& name) -> absl::StatusOr<v1::PowerMode> {
    std::vector<std::string> known;
    for (const PresetMode& p : presets.modes) {
      if (p.name != name) {
        known.push_back(p.name);
        continue;
      }
      const std::string reboot = RebootNeed(p, presets);
      if (!reboot.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("preset ", reboot));
      }
      return PresetKnobs(p, board);
    }
    return absl::NotFoundError(absl::StrCat("no such mode on this ",
                                            board.device_class, " (known: ",
                                            absl::StrJoin(known, ", "), ")"));
  };
}

}  // namespace jetson
}  // namespace powersweep
