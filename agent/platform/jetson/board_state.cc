#include "agent/platform/jetson/board_state.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace powersweep {
namespace jetson {

namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

void Keep(absl::Status* first, absl::Status s) {
  if (first->ok() && !s.ok()) *first = std::move(s);
}

Value Num(double v) {
  Value out;
  out.set_number_value(v);
  return out;
}
Value Str(const std::string& v) {
  Value out;
  out.set_string_value(v);
  return out;
}
Value Bool(bool v) {
  Value out;
  out.set_bool_value(v);
  return out;
}
Value IntList(const std::vector<int>& v) {
  Value out;
  for (int x : v) *out.mutable_list_value()->add_values() = Num(x);
  return out;
}

const Value& Field(const Struct& s, const std::string& key) {
  static const Value* const kEmpty = new Value();
  auto it = s.fields().find(key);
  return it == s.fields().end() ? *kEmpty : it->second;
}
int64_t GetInt(const Struct& s, const std::string& key) {
  return static_cast<int64_t>(Field(s, key).number_value());
}
std::vector<int> GetIntList(const Struct& s, const std::string& key) {
  std::vector<int> out;
  for (const Value& v : Field(s, key).list_value().values()) {
    out.push_back(static_cast<int>(v.number_value()));
  }
  return out;
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
    absl::StatusOr<int64_t> lo = ReadInt(io, cs.cpufreq_dir + "/scaling_min_freq");
    if (!lo.ok()) return lo.status();
    absl::StatusOr<int64_t> hi = ReadInt(io, cs.cpufreq_dir + "/scaling_max_freq");
    if (!hi.ok()) return hi.status();
    cs.min_khz = *lo;
    cs.max_khz = *hi;
    state.clusters.push_back(cs);
  }
  if (board.gpu.present) {
    const std::string& d = board.gpu.devfreq_dir;
    absl::StatusOr<int64_t> lo = ReadInt(io, d + "/min_freq");
    if (!lo.ok()) return lo.status();
    absl::StatusOr<int64_t> hi = ReadInt(io, d + "/max_freq");
    if (!hi.ok()) return hi.status();
    state.has_gpu = true;
    state.gpu_devfreq_dir = d;
    state.gpu_power_control = board.gpu.power_control;
    state.gpu_control = ReadTextOr(io, board.gpu.power_control);
    if (state.gpu_control.empty()) state.gpu_control = "auto";
    state.gpu_min_hz = *lo;
    state.gpu_max_hz = *hi;
  }
  if (board.emc.present) {
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
  absl::StatusOr<int64_t> cur_min = ReadInt(io, min_path);
  if (!cur_min.ok()) return cur_min.status();
  const std::string lo = absl::StrCat(min_value);
  const std::string hi = absl::StrCat(max_value);
  if (max_value >= *cur_min) {  // raising (or within range): max first
    absl::Status s = io.Write(max_path, hi);
    if (!s.ok()) return s;
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
  if (state.emc_touched && state.has_emc) {
    const std::string d = kEmcDir;
    Keep(&first, io.Write(d + "/rate", absl::StrCat(state.emc_rate_hz)));
    Keep(&first, io.Write(d + "/state", absl::StrCat(state.emc_state)));
    Keep(&first,
         io.Write(d + "/mrq_rate_locked", absl::StrCat(state.emc_locked)));
  }
  return first;
}

std::string StateToJson(const BoardState& s) {
  Struct root;
  auto& f = *root.mutable_fields();
  f["version"] = Num(1);
  f["online_cpus"] = IntList(s.online_cpus);
  f["offline_cpus"] = IntList(s.offline_cpus);
  Value clusters;
  for (const ClusterState& c : s.clusters) {
    Struct cs;
    (*cs.mutable_fields())["cpufreq_dir"] = Str(c.cpufreq_dir);
    (*cs.mutable_fields())["min_khz"] = Num(static_cast<double>(c.min_khz));
    (*cs.mutable_fields())["max_khz"] = Num(static_cast<double>(c.max_khz));
    *clusters.mutable_list_value()->add_values()->mutable_struct_value() = cs;
  }
  clusters.mutable_list_value();
  f["clusters"] = clusters;
  f["has_gpu"] = Bool(s.has_gpu);
  f["gpu_devfreq_dir"] = Str(s.gpu_devfreq_dir);
  f["gpu_power_control"] = Str(s.gpu_power_control);
  f["gpu_control"] = Str(s.gpu_control);
  f["gpu_min_hz"] = Num(static_cast<double>(s.gpu_min_hz));
  f["gpu_max_hz"] = Num(static_cast<double>(s.gpu_max_hz));
  f["has_emc"] = Bool(s.has_emc);
  f["emc_rate_hz"] = Num(static_cast<double>(s.emc_rate_hz));
  f["emc_locked"] = Num(static_cast<double>(s.emc_locked));
  f["emc_state"] = Num(static_cast<double>(s.emc_state));
  f["cores_touched"] = Bool(s.cores_touched);
  f["cpu_touched"] = Bool(s.cpu_touched);
  f["gpu_touched"] = Bool(s.gpu_touched);
  f["emc_touched"] = Bool(s.emc_touched);
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(root, &out, opts);
  return out;
}

absl::StatusOr<BoardState> StateFromJson(const std::string& json) {
  Struct root;
  if (!google::protobuf::util::JsonStringToMessage(json, &root).ok() ||
      GetInt(root, "version") != 1) {
    return absl::InvalidArgumentError(
        "restore state: not a version 1 Jetson restore file");
  }
  BoardState s;
  s.online_cpus = GetIntList(root, "online_cpus");
  s.offline_cpus = GetIntList(root, "offline_cpus");
  for (const Value& v : Field(root, "clusters").list_value().values()) {
    ClusterState c;
    c.cpufreq_dir = Field(v.struct_value(), "cpufreq_dir").string_value();
    c.min_khz = GetInt(v.struct_value(), "min_khz");
    c.max_khz = GetInt(v.struct_value(), "max_khz");
    if (c.cpufreq_dir.empty() || c.min_khz <= 0 || c.max_khz <= 0) {
      return absl::InvalidArgumentError(
          "restore state: a cluster lacks cpufreq_dir/min_khz/max_khz");
    }
    s.clusters.push_back(c);
  }
  s.has_gpu = Field(root, "has_gpu").bool_value();
  s.gpu_devfreq_dir = Field(root, "gpu_devfreq_dir").string_value();
  s.gpu_power_control = Field(root, "gpu_power_control").string_value();
  s.gpu_control = Field(root, "gpu_control").string_value();
  s.gpu_min_hz = GetInt(root, "gpu_min_hz");
  s.gpu_max_hz = GetInt(root, "gpu_max_hz");
  s.has_emc = Field(root, "has_emc").bool_value();
  s.emc_rate_hz = GetInt(root, "emc_rate_hz");
  s.emc_locked = GetInt(root, "emc_locked");
  s.emc_state = GetInt(root, "emc_state");
  s.cores_touched = Field(root, "cores_touched").bool_value();
  s.cpu_touched = Field(root, "cpu_touched").bool_value();
  s.gpu_touched = Field(root, "gpu_touched").bool_value();
  s.emc_touched = Field(root, "emc_touched").bool_value();
  return s;
}

}  // namespace jetson
}  // namespace powersweep
