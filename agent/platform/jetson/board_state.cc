#include "agent/platform/jetson/board_state.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {
namespace jetson {

namespace {

void Keep(absl::Status* first, absl::Status s) {
  if (first->ok() && !s.ok()) *first = std::move(s);
}

}  // namespace

absl::StatusOr<BoardState> RecordState(SysfsIo& io, const BoardInfo& board) {
  BoardState state;
  std::vector<int> online;
  for (int cpu : board.cpus) {
    absl::StatusOr<int64_t> on = ReadInt(io, BoardInfo::OnlinePath(cpu));
    const bool is_on = cpu == 0 || !on.ok() || *on != 0;
    if (is_on) online.push_back(cpu);
    if (cpu == 0 || !on.ok()) continue;
    (is_on ? state.online_cpus : state.offline_cpus).push_back(cpu);
  }
  for (const CpuCluster& c : board.clusters) {
    auto it = std::find_first_of(c.cpus.begin(), c.cpus.end(), online.begin(),
                                 online.end());
    if (it == c.cpus.end()) continue;  // inactive policy: cannot be read
    ClusterState cs;
    cs.cpufreq_dir = absl::StrCat(kCpuDir, "/cpu", *it, "/cpufreq");
    PS_ASSIGN_OR_RETURN(int64_t lo,
                        ReadInt(io, cs.cpufreq_dir + "/scaling_min_freq"));
    PS_ASSIGN_OR_RETURN(int64_t hi,
                        ReadInt(io, cs.cpufreq_dir + "/scaling_max_freq"));
    cs.min_khz = lo;
    cs.max_khz = hi;
    state.clusters.push_back(cs);
  }
  if (board.gpu.present) {
    const std::string& d = board.gpu.devfreq_dir;
    PS_ASSIGN_OR_RETURN(int64_t lo, ReadInt(io, d + "/min_freq"));
    PS_ASSIGN_OR_RETURN(int64_t hi, ReadInt(io, d + "/max_freq"));
    state.has_gpu = true;
    state.gpu_devfreq_dir = d;
    state.gpu_power_control = board.gpu.power_control;
    state.gpu_control = ReadTextOr(io, board.gpu.power_control);
    if (state.gpu_control.empty()) state.gpu_control = "auto";
    state.gpu_min_hz = lo;
    state.gpu_max_hz = hi;
  }
  if (board.emc.present && board.emc.devfreq()) {
    const std::string& d = board.emc.devfreq_dir;
    PS_ASSIGN_OR_RETURN(int64_t lo, ReadInt(io, d + "/min_freq"));
    PS_ASSIGN_OR_RETURN(int64_t hi, ReadInt(io, d + "/max_freq"));
    state.has_emc = true;
    state.emc_devfreq_dir = d;
    state.emc_min_hz = lo;
    state.emc_max_hz = hi;
  } else if (board.emc.present) {
    absl::StatusOr<int64_t> rate = ReadInt(io, board.emc.Path("rate"));
    absl::StatusOr<int64_t> locked =
        ReadInt(io, board.emc.Path("mrq_rate_locked"));
    absl::StatusOr<int64_t> st = ReadInt(io, board.emc.Path("state"));
    if (rate.ok() && locked.ok() && st.ok()) {
      state.has_emc = true;
      state.emc_rate_hz = *rate;
      state.emc_locked = *locked;
      state.emc_state = *st;
    }
  }
  return state;
}

absl::Status WriteMinMax(SysfsIo& io, const std::string& min_path,
                         const std::string& max_path, int64_t min_value,
                         int64_t max_value) {
  PS_ASSIGN_OR_RETURN(int64_t cur_min, ReadInt(io, min_path));
  const std::string lo = absl::StrCat(min_value);
  const std::string hi = absl::StrCat(max_value);
  if (max_value >= cur_min) {  // raising (or within range): max first
    PS_RETURN_IF_ERROR(io.Write(max_path, hi));
    return io.Write(min_path, lo);
  }
  absl::Status s = io.Write(min_path, lo);  // lowering: min first
  if (!s.ok()) return s;
  return io.Write(max_path, hi);
}

absl::Status RestoreState(SysfsIo& io, const BoardState& state) {
  absl::Status first;
  if (state.cores_touched) {
    for (int cpu : state.online_cpus) {
      Keep(&first, io.Write(BoardInfo::OnlinePath(cpu), "1"));
    }
  }
  if (state.cpu_touched) {
    for (const ClusterState& c : state.clusters) {
      Keep(&first, WriteMinMax(io, c.cpufreq_dir + "/scaling_min_freq",
                               c.cpufreq_dir + "/scaling_max_freq", c.min_khz,
                               c.max_khz));
    }
  }
  if (state.cores_touched) {
    for (auto it = state.offline_cpus.rbegin(); it != state.offline_cpus.rend();
         ++it) {
      Keep(&first, io.Write(BoardInfo::OnlinePath(*it), "0"));
    }
  }
  if (state.gpu_touched && state.has_gpu) {
    Keep(&first, io.Write(state.gpu_power_control, "on"));
    Keep(&first, WriteMinMax(io, state.gpu_devfreq_dir + "/min_freq",
                             state.gpu_devfreq_dir + "/max_freq",
                             state.gpu_min_hz, state.gpu_max_hz));
    Keep(&first, io.Write(state.gpu_power_control, state.gpu_control));
  }
  if (state.emc_touched && state.has_emc && !state.emc_devfreq_dir.empty()) {
    Keep(&first, WriteMinMax(io, state.emc_devfreq_dir + "/min_freq",
                             state.emc_devfreq_dir + "/max_freq",
                             state.emc_min_hz, state.emc_max_hz));
  } else if (state.emc_touched && state.has_emc) {
    const std::string d = kEmcDir;
    Keep(&first, io.Write(d + "/rate", absl::StrCat(state.emc_rate_hz)));
    Keep(&first, io.Write(d + "/state", absl::StrCat(state.emc_state)));
    Keep(&first,
         io.Write(d + "/mrq_rate_locked", absl::StrCat(state.emc_locked)));
  }
  return first;
}

}  // namespace jetson
}  // namespace powersweep
