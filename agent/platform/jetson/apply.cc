#include "agent/platform/jetson/apply.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/jetson/board_state.h"
#include "common/power/mode_space.h"
#include "common/status_macros.h"

namespace powersweep {
namespace jetson {

namespace {

bool Contains(const std::vector<int64_t>& table, int64_t v) {
  return std::find(table.begin(), table.end(), v) != table.end();
}

// Largest table value <= v (the smallest when none is): how nvpmodel caps
// are honoured by the kernel.
int64_t SnapDown(const std::vector<int64_t>& table, int64_t v) {
  int64_t best = table.front();
  for (int64_t t : table) {
    if (t <= v) best = t;
  }
  return best;
}

// Validates one frequency knob. `from_preset` values are snapped to the
// table with a note; explicit values must be in the table.
absl::Status CheckFreq(const char* field, const char* unit,
                       const std::vector<int64_t>& table, bool from_preset,
                       const std::string& device_class, int64_t* value,
                       std::vector<std::string>* notes) {
  if (*value == 0 || Contains(table, *value)) return absl::OkStatus();
  if (*value < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": ", *value, " must be >= 0"));
  }
  if (from_preset) {
    const int64_t snapped = SnapDown(table, *value);
    notes->push_back(absl::StrCat(field, ": preset value ", *value, " ", unit,
                                  " set as ", snapped, " ", unit,
                                  " (nearest available step)"));
    *value = snapped;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      field, ": ", *value, " ", unit, " is not an available frequency of this ",
      device_class, "; nearest valid: ",
      table.empty() ? "(none: the table is empty)"
                    : absl::StrJoin(NearestValues(table, *value), ", ")));
}

// The cpufreq directories to write for the clusters that will have an
// online CPU (`cores` = 0: the CPUs online now).
std::vector<std::string> ActiveClusterDirs(SysfsIo& io, const BoardInfo& board,
                                           int cores) {
  std::vector<int> online;
  if (cores > 0) {
    online.assign(board.cpus.begin(),
                  board.cpus.begin() + std::min<size_t>(cores, board.cpus.size()));
  } else {
    online = OnlineCpus(io, board);
  }
  std::vector<std::string> dirs;
  for (const CpuCluster& c : board.clusters) {
    auto it = std::find_first_of(c.cpus.begin(), c.cpus.end(), online.begin(),
                                 online.end());
    if (it != c.cpus.end()) {
      dirs.push_back(absl::StrCat(kCpuDir, "/cpu", *it, "/cpufreq"));
    }
  }
  return dirs;
}

}  // namespace

absl::StatusOr<ModePlan> PlanMode(SysfsIo& io, const BoardInfo& board,
                                  const v1::PowerMode& mode,
                                  const PresetResolver& presets) {
  v1::PowerMode m = mode;
  v1::PowerMode preset_mode;
  if (mode.gpu_power_limit_w() != 0) {
    return absl::InvalidArgumentError(
        "gpu_power_limit_w: a Jetson has no GPU power limit (a host GPU's "
        "knob, set through NVML); use a preset or gpu_freq_hz");
  }
  if (!mode.preset().empty()) {
    if (!presets) {
      return absl::InvalidArgumentError(absl::StrCat(
          "preset: \"", mode.preset(),
          "\" cannot be resolved: this agent has no nvpmodel catalog; give "
          "cpu_cores, cpu_freq_khz, gpu_freq_hz and mem_freq_hz instead"));
    }
    absl::StatusOr<v1::PowerMode> resolved = presets(mode.preset());
    if (!resolved.ok()) {
      // A mode that needs a reboot stays FailedPrecondition (the board's
      // state, not the request, is in the way); the rest are bad names.
      return absl::Status(
          absl::IsFailedPrecondition(resolved.status())
              ? absl::StatusCode::kFailedPrecondition
              : absl::StatusCode::kInvalidArgument,
          absl::StrCat("preset: \"", mode.preset(), "\": ",
                       resolved.status().message()));
    }
    preset_mode = *resolved;
    if (m.cpu_cores() == 0) m.set_cpu_cores(preset_mode.cpu_cores());
    if (m.cpu_freq_khz() == 0) m.set_cpu_freq_khz(preset_mode.cpu_freq_khz());
    if (m.gpu_freq_hz() == 0) m.set_gpu_freq_hz(preset_mode.gpu_freq_hz());
    if (m.mem_freq_hz() == 0) m.set_mem_freq_hz(preset_mode.mem_freq_hz());
  }
  ModePlan plan;
  const int ncpu = static_cast<int>(board.cpus.size());
  if (m.cpu_cores() < 0 || m.cpu_cores() > ncpu) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cpu_cores: ", m.cpu_cores(), " requested but this ",
        board.device_class, " has ", ncpu, " cores (valid: 1..", ncpu, ")"));
  }
  plan.cpu_cores = m.cpu_cores();
  plan.cpu_freq_khz = m.cpu_freq_khz();
  plan.gpu_freq_hz = m.gpu_freq_hz();
  plan.mem_freq_hz = m.mem_freq_hz();

  // Knobs that are absent on this board: FailedPrecondition naming a file.
  if (plan.cpu_freq_khz != 0 &&
      (board.clusters.empty() || board.clusters[0].freqs_khz.empty())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cpu_freq_khz: ", io.Resolve(absl::StrCat(kCpuDir, "/cpu0/cpufreq/"
                                                  "scaling_available_frequencies")),
        " is missing or empty"));
  }
  if (plan.gpu_freq_hz != 0 && !board.gpu.present) {
    return absl::FailedPreconditionError(absl::StrCat(
        "gpu_freq_hz: no GPU devfreq node (17000000.gpu, 17000000.ga10b, "
        "gpu-gpc-0, ..., or device/of_node/name gv11b, gp10b, ga10b, gb10b "
        "or gpu) under ", io.Resolve("/sys/class/devfreq")));
  }
  if (plan.mem_freq_hz != 0 && !board.emc.present) {
    absl::Status s = io.CheckWritable(board.emc.Path("rate"));
    return absl::FailedPreconditionError(absl::StrCat(
        "mem_freq_hz: ", s.ok() ? io.Resolve(board.emc.Path("rate")) + ": not readable"
                                : std::string(s.message())));
  }
  if (plan.mem_freq_hz != 0 && board.emc.rates_hz.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "mem_freq_hz: no EMC rate table for ", board.device_class, " (",
        io.Resolve("/sys/kernel/debug/bpmp/debug/emc/tables/regular"),
        " is missing)"));
  }

  // Values must be in the tables.
  const bool preset = !mode.preset().empty();
  for (const CpuCluster& c : board.clusters) {
    PS_RETURN_IF_ERROR(CheckFreq(
        "cpu_freq_khz", "kHz", c.freqs_khz, preset && mode.cpu_freq_khz() == 0,
        board.device_class, &plan.cpu_freq_khz, &plan.notes));
  }
  absl::Status s = CheckFreq("gpu_freq_hz", "Hz", board.gpu.freqs_hz,
                             preset && mode.gpu_freq_hz() == 0,
                             board.device_class, &plan.gpu_freq_hz, &plan.notes);
  if (!s.ok()) return s;
  s = CheckFreq("mem_freq_hz", "Hz", board.emc.rates_hz,
                preset && mode.mem_freq_hz() == 0, board.device_class,
                &plan.mem_freq_hz, &plan.notes);
  if (!s.ok()) return s;

  // Every file to be written must be writable (EACCES when not root).
  std::vector<std::string> files;
  if (plan.cpu_cores > 0) {
    for (int cpu : board.cpus) {
      if (cpu != 0) files.push_back(BoardInfo::OnlinePath(cpu));
    }
  }
  if (plan.cpu_freq_khz > 0) {
    for (const std::string& d : ActiveClusterDirs(io, board, plan.cpu_cores)) {
      files.push_back(d + "/scaling_max_freq");
      files.push_back(d + "/scaling_min_freq");
    }
  }
  if (plan.gpu_freq_hz > 0) {
    files.push_back(board.gpu.power_control);
    files.push_back(board.gpu.devfreq_dir + "/max_freq");
    files.push_back(board.gpu.devfreq_dir + "/min_freq");
  }
  if (plan.mem_freq_hz > 0 && board.emc.devfreq()) {
    files.push_back(board.emc.devfreq_dir + "/max_freq");
    files.push_back(board.emc.devfreq_dir + "/min_freq");
  } else if (plan.mem_freq_hz > 0) {
    for (const char* f : {"mrq_rate_locked", "state", "rate"}) {
      files.push_back(board.emc.Path(f));
    }
  }
  for (const std::string& f : files) {
    PS_RETURN_IF_ERROR(io.CheckWritable(f));
  }
  return plan;
}

absl::Status WriteMode(SysfsIo& io, const BoardInfo& board,
                       const ModePlan& plan,
                       const std::string& gpu_control_after) {
  if (plan.cpu_cores > 0) {
    // Ascending: the wanted cores come online before the others go off.
    for (size_t i = 0; i < board.cpus.size(); ++i) {
      const int cpu = board.cpus[i];
      if (cpu == 0) continue;
      PS_RETURN_IF_ERROR(
          io.Write(BoardInfo::OnlinePath(cpu),
                   static_cast<int>(i) < plan.cpu_cores ? "1" : "0"));
    }
  }
  if (plan.cpu_freq_khz > 0) {
    for (const std::string& d : ActiveClusterDirs(io, board, plan.cpu_cores)) {
      PS_RETURN_IF_ERROR(WriteMinMax(io, d + "/scaling_min_freq",
                                     d + "/scaling_max_freq", plan.cpu_freq_khz,
                                     plan.cpu_freq_khz));
    }
  }
  if (plan.gpu_freq_hz > 0) {
    absl::Status s = io.Write(board.gpu.power_control, "on");
    if (!s.ok()) return s;
    s = WriteMinMax(io, board.gpu.devfreq_dir + "/min_freq",
                    board.gpu.devfreq_dir + "/max_freq", plan.gpu_freq_hz,
                    plan.gpu_freq_hz);
    absl::Status after = io.Write(board.gpu.power_control, gpu_control_after);
    if (!s.ok()) return s;
    if (!after.ok()) return after;
  }
  if (plan.mem_freq_hz > 0 && board.emc.devfreq()) {
    PS_RETURN_IF_ERROR(WriteMinMax(io, board.emc.devfreq_dir + "/min_freq",
                                   board.emc.devfreq_dir + "/max_freq",
                                   plan.mem_freq_hz, plan.mem_freq_hz));
  } else if (plan.mem_freq_hz > 0) {
    for (const auto& [file, value] :
         std::vector<std::pair<std::string, std::string>>{
             {"mrq_rate_locked", "1"},
             {"state", "1"},
             {"rate", absl::StrCat(plan.mem_freq_hz)}}) {
      PS_RETURN_IF_ERROR(io.Write(board.emc.Path(file), value));
    }
  }
  return absl::OkStatus();
}

}  // namespace jetson
}  // namespace powersweep
