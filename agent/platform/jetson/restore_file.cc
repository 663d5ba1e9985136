#include "agent/platform/jetson/restore_file.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "agent/util/state_dir.h"
#include "common/log.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace powersweep {
namespace jetson {

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr char kWarn[] = "restore file: ";

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
  out.mutable_list_value();
  for (int x : v) *out.mutable_list_value()->add_values() = Num(x);
  return out;
}

// `key` by value: GCC 13's -Wdangling-reference flags a reference returned
// from a call whose argument is a temporary (a std::string made from a
// literal), although the result refers into `s`.
const Value& Field(const Struct& s, absl::string_view key) {
  static const Value* const kEmpty = new Value();
  auto it = s.fields().find(std::string(key));
  return it == s.fields().end() ? *kEmpty : it->second;
}

// An integer a double holds exactly (|v| <= 2^53); nullopt for anything
// else (a string, NaN, 1e300, 1.5), so no cast below is undefined.
std::optional<int64_t> IntOf(const Value& v) {
  if (v.kind_case() != Value::kNumberValue) return std::nullopt;
  const double d = v.number_value();
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > kExact) {
    return std::nullopt;
  }
  return static_cast<int64_t>(d);
}

std::string Shown(const Value& v) {
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(v, &out);
  return out.substr(0, 80);
}

// CPU numbers of list `key`; other entries are warned about and dropped.
std::vector<int> CpuList(const Struct& root, const std::string& key,
                         std::vector<std::string>* warnings) {
  std::vector<int> out;
  for (const Value& v : Field(root, key).list_value().values()) {
    std::optional<int64_t> cpu = IntOf(v);
    if (!cpu || *cpu < 0 || *cpu > 4095) {
      warnings->push_back(absl::StrCat(kWarn, key, " entry ", Shown(v),
                                       " is not a CPU number; skipped"));
      continue;
    }
    out.push_back(static_cast<int>(*cpu));
  }
  return out;
}

// A positive integer at `key`, else a warning naming `path`.
std::optional<int64_t> PositiveAt(const Struct& s, const std::string& key,
                                  const std::string& path,
                                  std::vector<std::string>* warnings) {
  const Value& v = Field(s, key);
  std::optional<int64_t> n = IntOf(v);
  if (!n || *n <= 0) {
    warnings->push_back(absl::StrCat(kWarn, path, ": value ", Shown(v),
                                     " is not a positive integer; skipped"));
    return std::nullopt;
  }
  return n;
}

// 0 or 1 at `key`, else a warning naming `path`.
std::optional<int64_t> FlagAt(const Struct& s, const std::string& key,
                              const std::string& path,
                              std::vector<std::string>* warnings) {
  const Value& v = Field(s, key);
  std::optional<int64_t> n = IntOf(v);
  if (!n || (*n != 0 && *n != 1)) {
    warnings->push_back(absl::StrCat(kWarn, path, ": value ", Shown(v),
                                     " is not 0 or 1; skipped"));
    return std::nullopt;
  }
  return n;
}

void ReadGpu(const Struct& root, BoardState* s,
             std::vector<std::string>* warnings) {
  s->has_gpu = Field(root, "has_gpu").bool_value();
  if (!s->has_gpu) return;
  s->gpu_devfreq_dir = Field(root, "gpu_devfreq_dir").string_value();
  s->gpu_power_control = Field(root, "gpu_power_control").string_value();
  const Value& control = Field(root, "gpu_control");
  s->gpu_control = control.string_value();
  if (s->gpu_control != "auto" && s->gpu_control != "on") {
    warnings->push_back(absl::StrCat(kWarn, s->gpu_power_control, ": value ",
                                     Shown(control),
                                     " is not auto or on; GPU skipped"));
    s->has_gpu = false;
    return;
  }
  std::optional<int64_t> lo = PositiveAt(
      root, "gpu_min_hz", s->gpu_devfreq_dir + "/min_freq", warnings);
  std::optional<int64_t> hi = PositiveAt(
      root, "gpu_max_hz", s->gpu_devfreq_dir + "/max_freq", warnings);
  if (!lo || !hi) {
    s->has_gpu = false;
    return;
  }
  s->gpu_min_hz = *lo;
  s->gpu_max_hz = *hi;
}

void ReadEmc(const Struct& root, BoardState* s,
             std::vector<std::string>* warnings) {
  s->has_emc = Field(root, "has_emc").bool_value();
  if (!s->has_emc) return;
  s->emc_devfreq_dir = Field(root, "emc_devfreq_dir").string_value();
  if (!s->emc_devfreq_dir.empty()) {  // Thor's bwmgr
    std::optional<int64_t> lo = PositiveAt(
        root, "emc_min_hz", s->emc_devfreq_dir + "/min_freq", warnings);
    std::optional<int64_t> hi = PositiveAt(
        root, "emc_max_hz", s->emc_devfreq_dir + "/max_freq", warnings);
    if (!lo || !hi) {
      s->has_emc = false;
      return;
    }
    s->emc_min_hz = *lo;
    s->emc_max_hz = *hi;
    return;
  }
  const std::string d = kEmcDir;
  std::optional<int64_t> rate =
      PositiveAt(root, "emc_rate_hz", d + "/rate", warnings);
  std::optional<int64_t> locked =
      FlagAt(root, "emc_locked", d + "/mrq_rate_locked", warnings);
  std::optional<int64_t> state = FlagAt(root, "emc_state", d + "/state",
                                        warnings);
  if (!rate || !locked || !state) {
    s->has_emc = false;
    return;
  }
  s->emc_rate_hz = *rate;
  s->emc_locked = *locked;
  s->emc_state = *state;
}

}  // namespace

std::string StateToJson(const BoardState& s) {
  Struct root;
  auto& f = *root.mutable_fields();
  f["version"] = Num(1);
  f["online_cpus"] = IntList(s.online_cpus);
  f["offline_cpus"] = IntList(s.offline_cpus);
  Value clusters;
  clusters.mutable_list_value();
  for (const ClusterState& c : s.clusters) {
    Struct cs;
    (*cs.mutable_fields())["cpufreq_dir"] = Str(c.cpufreq_dir);
    (*cs.mutable_fields())["min_khz"] = Num(static_cast<double>(c.min_khz));
    (*cs.mutable_fields())["max_khz"] = Num(static_cast<double>(c.max_khz));
    *clusters.mutable_list_value()->add_values()->mutable_struct_value() = cs;
  }
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
  f["emc_devfreq_dir"] = Str(s.emc_devfreq_dir);
  f["emc_min_hz"] = Num(static_cast<double>(s.emc_min_hz));
  f["emc_max_hz"] = Num(static_cast<double>(s.emc_max_hz));
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

absl::StatusOr<BoardState> StateFromJson(const std::string& json,
                                         std::vector<std::string>* warnings) {
  std::vector<std::string> ignored;
  if (warnings == nullptr) warnings = &ignored;
  Struct root;
  if (!google::protobuf::util::JsonStringToMessage(json, &root).ok() ||
      IntOf(Field(root, "version")) != std::optional<int64_t>(1)) {
    return absl::InvalidArgumentError(
        "restore state: not a version 1 Jetson restore file");
  }
  BoardState s;
  s.online_cpus = CpuList(root, "online_cpus", warnings);
  s.offline_cpus = CpuList(root, "offline_cpus", warnings);
  for (const Value& v : Field(root, "clusters").list_value().values()) {
    const Struct& cs = v.struct_value();
    ClusterState c;
    c.cpufreq_dir = Field(cs, "cpufreq_dir").string_value();
    if (c.cpufreq_dir.empty()) {
      warnings->push_back(absl::StrCat(kWarn, "a cluster entry has no "
                                       "cpufreq_dir; skipped"));
      continue;
    }
    std::optional<int64_t> lo = PositiveAt(
        cs, "min_khz", c.cpufreq_dir + "/scaling_min_freq", warnings);
    std::optional<int64_t> hi = PositiveAt(
        cs, "max_khz", c.cpufreq_dir + "/scaling_max_freq", warnings);
    if (!lo || !hi) continue;
    c.min_khz = *lo;
    c.max_khz = *hi;
    s.clusters.push_back(c);
  }
  ReadGpu(root, &s, warnings);
  ReadEmc(root, &s, warnings);
  s.cores_touched = Field(root, "cores_touched").bool_value();
  s.cpu_touched = Field(root, "cpu_touched").bool_value();
  s.gpu_touched = Field(root, "gpu_touched").bool_value();
  s.emc_touched = Field(root, "emc_touched").bool_value();
  return s;
}

BoardState KeepDiscoveredKnobs(const BoardState& state, const BoardInfo& board,
                               std::vector<std::string>* warnings) {
  auto refuse = [warnings](const std::string& path) {
    warnings->push_back(absl::StrCat(
        kWarn, path, " is not a knob discovery found on this board; skipped"));
  };
  BoardState out = state;
  const std::set<int> present(board.cpus.begin(), board.cpus.end());
  for (std::vector<int>* cpus : {&out.online_cpus, &out.offline_cpus}) {
    std::vector<int> kept;
    for (int cpu : *cpus) {
      if (cpu != 0 && present.count(cpu) > 0) {
        kept.push_back(cpu);
      } else {
        refuse(BoardInfo::OnlinePath(cpu));
      }
    }
    *cpus = kept;
  }
  std::set<std::string> cpufreq_dirs;
  for (const CpuCluster& c : board.clusters) {
    for (int cpu : c.cpus) {
      cpufreq_dirs.insert(absl::StrCat(kCpuDir, "/cpu", cpu, "/cpufreq"));
    }
  }
  out.clusters.clear();
  for (const ClusterState& c : state.clusters) {
    if (cpufreq_dirs.count(c.cpufreq_dir) > 0) {
      out.clusters.push_back(c);
    } else {
      refuse(c.cpufreq_dir);
    }
  }
  if (out.has_gpu) {
    if (!board.gpu.present || out.gpu_devfreq_dir != board.gpu.devfreq_dir) {
      refuse(out.gpu_devfreq_dir);
      out.has_gpu = false;
    } else if (out.gpu_power_control != board.gpu.power_control) {
      refuse(out.gpu_power_control);
      out.has_gpu = false;
    }
  }
  if (out.has_emc &&
      (!board.emc.present || out.emc_devfreq_dir != board.emc.devfreq_dir)) {
    refuse(out.emc_devfreq_dir.empty() ? std::string(kEmcDir)
                                       : out.emc_devfreq_dir);
    out.has_emc = false;
  }
  return out;
}

absl::Status WriteRestoreFile(const std::string& path,
                              const BoardState& state) {
  absl::Status s = WriteStateFile(path, StateToJson(state));
  if (!s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write the restore state: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status RestoreFromStateFile(SysfsIo& io, const BoardInfo& board,
                                  const std::string& path) {
  if (path.empty()) return absl::OkStatus();
  absl::StatusOr<std::optional<std::string>> text = ReadStateFile(path);
  if (!text.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        text.status().message(), "; check the board and delete the file"));
  }
  if (!text->has_value()) return absl::OkStatus();
  std::vector<std::string> warnings;
  absl::StatusOr<BoardState> state = StateFromJson(**text, &warnings);
  if (!state.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": ", state.status().message(),
                     "; check the board and delete the file"));
  }
  const BoardState checked = KeepDiscoveredKnobs(*state, board, &warnings);
  for (const std::string& w : warnings) PS_LOG(WARNING) << path << ": " << w;
  absl::Status s = RestoreState(io, checked);
  if (!s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "restoring the board from ", path, " (left by an agent that stopped "
        "with a custom mode applied): ", s.message()));
  }
  unlink(path.c_str());
  PS_LOG(WARNING) << "restored the board from " << path
                  << ": the previous agent stopped with a custom mode applied";
  return absl::OkStatus();
}

}  // namespace jetson
}  // namespace powersweep
