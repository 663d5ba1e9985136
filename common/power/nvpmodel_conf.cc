#include "common/power/nvpmodel_conf.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

constexpr int64_t kPrintedNoCap = 2147483647;

enum class Block { kNone, kParam, kMode, kIgnored };

class Parser {
 public:
  explicit Parser(absl::string_view source) : source_(source) {}

  absl::StatusOr<NvpmodelConf> Run(absl::string_view text) {
    int line_no = 0;
    for (absl::string_view raw : absl::StrSplit(text, '\n')) {
      ++line_no;
      line_ = line_no;
      absl::string_view line = raw.substr(0, raw.find('#'));
      line = absl::StripAsciiWhitespace(line);
      if (line.empty()) continue;
      PS_RETURN_IF_ERROR(line[0] == '<' ? Tag(line) : Setting(line));
    }
    if (conf_.modes.empty()) return FileError("no POWER_MODEL block");
    if (!seen_pm_config_) {
      return FileError("no < PM_CONFIG DEFAULT=n > (mandatory)");
    }
    if (conf_.FindById(conf_.default_id) == nullptr) {
      line_ = pm_config_line_;
      return Error(absl::StrCat("PM_CONFIG DEFAULT=", conf_.default_id,
                                " names no POWER_MODEL"));
    }
    return std::move(conf_);
  }

 private:
  absl::Status Error(const std::string& reason) const {
    return absl::InvalidArgumentError(
        absl::StrCat(source_, ":", line_, ": ", reason));
  }

  absl::Status FileError(const std::string& reason) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", reason));
  }

  // "< POWER_MODEL ID=1 NAME=MODE_15W >" and its spacing variants.
  absl::Status Tag(absl::string_view line) {
    if (line.back() != '>') return Error("tag without a closing '>'");
    std::string inner(line.substr(1, line.size() - 2));
    // Drop spaces around '=' so "ID = 1" reads as "ID=1".
    std::string packed;
    for (size_t i = 0; i < inner.size(); ++i) {
      if (inner[i] == ' ' || inner[i] == '\t') {
        size_t j = inner.find_first_not_of(" \t", i);
        bool next_eq = j != std::string::npos && inner[j] == '=';
        bool prev_eq = !packed.empty() && packed.back() == '=';
        if (next_eq || prev_eq) continue;
      }
      packed.push_back(inner[i]);
    }
    std::vector<std::string> tokens =
        absl::StrSplit(packed, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (tokens.empty()) return Error("empty tag");
    std::map<std::string, std::string> attrs;
    for (size_t i = 1; i < tokens.size(); ++i) {
      std::pair<std::string, std::string> kv =
          absl::StrSplit(tokens[i], absl::MaxSplits('=', 1));
      if (tokens[i].find('=') == std::string::npos || kv.first.empty()) {
        return Error(absl::StrCat("expected KEY=VALUE in the tag, got '",
                                  tokens[i], "'"));
      }
      attrs[kv.first] = kv.second;
    }
    const std::string& kind = tokens[0];
    if (kind == "PARAM") return OpenParam(attrs);
    if (kind == "POWER_MODEL") return OpenMode(attrs);
    block_ = Block::kIgnored;
    if (kind == "PM_CONFIG") {
      if (!absl::SimpleAtoi(attrs["DEFAULT"], &conf_.default_id)) {
        return Error("PM_CONFIG needs DEFAULT=<mode id>");
      }
      seen_pm_config_ = true;
      pm_config_line_ = line_;
    } else if (kind == "FAN_CONFIG") {
      conf_.fan_default = attrs["DEFAULT"];
    }
    return absl::OkStatus();
  }

  absl::Status OpenParam(std::map<std::string, std::string>& attrs) {
    if (attrs["NAME"].empty()) return Error("PARAM needs NAME=");
    conf_.params.push_back(
        NvpmodelParam{attrs["TYPE"], attrs["NAME"], {}, line_});
    block_ = Block::kParam;
    return absl::OkStatus();
  }

  absl::Status OpenMode(std::map<std::string, std::string>& attrs) {
    NvpmodelMode m;
    if (!absl::SimpleAtoi(attrs["ID"], &m.id) || m.id < 0) {
      return Error(absl::StrCat("POWER_MODEL needs ID=<non-negative integer>",
                                ", got '", attrs["ID"], "'"));
    }
    if (attrs["NAME"].empty()) return Error("POWER_MODEL needs NAME=");
    if (const NvpmodelMode* dup = conf_.FindById(m.id)) {
      return Error(absl::StrCat("POWER_MODEL ID=", m.id, " already used by ",
                                dup->name, " at line ", dup->line));
    }
    m.name = attrs["NAME"];
    m.line = line_;
    conf_.modes.push_back(std::move(m));
    block_ = Block::kMode;
    return absl::OkStatus();
  }

  absl::Status Setting(absl::string_view line) {
    std::vector<std::string> t =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    switch (block_) {
      case Block::kNone:
        return Error(absl::StrCat("'", line, "' is outside any block"));
      case Block::kIgnored:
        return absl::OkStatus();
      case Block::kParam:
        if (t.size() != 2) {
          return Error(absl::StrCat("expected 'ARG PATH' in PARAM ",
                                    conf_.params.back().name, ", got '", line,
                                    "'"));
        }
        conf_.params.back().paths[t[0]] = t[1];
        return absl::OkStatus();
      case Block::kMode:
        break;
    }
    NvpmodelMode& m = conf_.modes.back();
    if (t.size() != 3) {
      return Error(absl::StrCat("expected 'PARAM ARG VALUE' in POWER_MODEL ",
                                m.name, ", got '", line, "'"));
    }
    m.settings.push_back(NvpmodelSetting{t[0], t[1], t[2], line_});
    return Apply(t[0], t[1], t[2], &m);
  }

  absl::Status Number(const std::string& what, const std::string& v,
                      int64_t* out) const {
    if (!absl::SimpleAtoi(v, out)) {
      return Error(absl::StrCat(what, ": '", v, "' is not an integer"));
    }
    return absl::OkStatus();
  }

  // A frequency cap: -1, 2147483647 and 0 mean no cap.
  absl::Status Freq(const std::string& what, const std::string& v,
                    int64_t* out) const {
    int64_t f = 0;
    if (absl::Status st = Number(what, v, &f); !st.ok()) return st;
    if (f < -1) return Error(absl::StrCat(what, ": negative frequency ", f));
    *out = (f == -1 || f == 0 || f == kPrintedNoCap) ? kNoCap : f;
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& param, const std::string& arg,
                     const std::string& value, NvpmodelMode* m) {
    const std::string what = absl::StrCat(param, " ", arg);
    const bool is_max = arg == "MAX_FREQ", is_min = arg == "MIN_FREQ";
    if (param == "CPU_ONLINE") {
      int core = -1;
      absl::string_view n = arg;
      if (!absl::ConsumePrefix(&n, "CORE_") || !absl::SimpleAtoi(n, &core) ||
          core < 0) {
        return Error(absl::StrCat("CPU_ONLINE: expected CORE_<n>, got '", arg,
                                  "'"));
      }
      if (value != "0" && value != "1") {
        return Error(absl::StrCat(what, ": expected 0 or 1, got '", value,
                                  "'"));
      }
      m->cores_online[core] = value == "1";
    } else if (absl::StartsWith(param, "CPU_") && (is_max || is_min)) {
      return Freq(what, value,
                  is_max ? &m->cpu_max_khz[param] : &m->cpu_min_khz[param]);
    } else if (param == "GPU" && (is_max || is_min)) {
      return Freq(what, value, is_max ? &m->gpu_max_hz : &m->gpu_min_hz);
    } else if (param == "EMC" && is_max) {
      return Freq(what, value, &m->emc_max_hz);
    } else if (IsPgMask(param, arg)) {
      return Number(what, value, &m->tpc_pg_mask);
    }
    return absl::OkStatus();  // other parameters: kept in settings only
  }

  std::string source_;
  int line_ = 0;
  Block block_ = Block::kNone;
  bool seen_pm_config_ = false;
  int pm_config_line_ = 0;
  NvpmodelConf conf_;
};

}  // namespace

bool IsPgMask(absl::string_view param, absl::string_view arg) {
  // Orin: TPC_POWER_GATING TPC_PG_MASK. Thor's files name their
  // parameters differently (not public): any *POWER_GATING* *PG_MASK.
  return absl::StrContains(param, "POWER_GATING") &&
         absl::EndsWith(arg, "PG_MASK");
}

namespace {

int64_t Combine(const std::map<std::string, int64_t>& per_cluster) {
  int64_t out = kKnobUnset;
  for (const auto& [cluster, f] : per_cluster) {
    if (f == kNoCap) return kNoCap;
    out = std::max(out, f);
  }
  return out;
}

}  // namespace

int NvpmodelMode::OnlineCores() const {
  return static_cast<int>(
      std::count_if(cores_online.begin(), cores_online.end(),
                    [](const auto& kv) { return kv.second; }));
}

int64_t NvpmodelMode::CpuMaxKhz() const { return Combine(cpu_max_khz); }
int64_t NvpmodelMode::CpuMinKhz() const { return Combine(cpu_min_khz); }

PresetMode NvpmodelMode::ToPreset() const {
  PresetMode p;
  p.name = name;
  p.source = kSourceNvpmodel;
  p.nvpmodel_id = id;
  p.cpu_cores = OnlineCores();
  p.cpu_max_khz = CpuMaxKhz();
  p.cpu_min_khz = CpuMinKhz();
  p.gpu_max_hz = gpu_max_hz;
  p.gpu_min_hz = gpu_min_hz;
  p.mem_max_hz = emc_max_hz;
  p.gpu_pg_mask = tpc_pg_mask;
  return p;
}

const NvpmodelMode* NvpmodelConf::FindById(int id) const {
  for (const NvpmodelMode& m : modes) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

const NvpmodelMode* NvpmodelConf::FindByName(const std::string& name) const {
  for (const NvpmodelMode& m : modes) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::vector<PresetMode> NvpmodelConf::Presets() const {
  std::vector<PresetMode> out;
  for (const NvpmodelMode& m : modes) out.push_back(m.ToPreset());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.nvpmodel_id < b.nvpmodel_id;
  });
  return out;
}

absl::StatusOr<NvpmodelConf> ParseNvpmodelConf(absl::string_view text,
                                               absl::string_view source) {
  return Parser(source).Run(text);
}

absl::StatusOr<NvpmodelConf> ReadNvpmodelConf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    const std::string reason =
        absl::StrCat("cannot read nvpmodel config ", path, ": ",
                     std::strerror(err));
    if (err == EACCES) return absl::PermissionDeniedError(reason);
    if (err == ENOENT) return absl::NotFoundError(reason);
    return absl::UnavailableError(reason);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseNvpmodelConf(text.str(), path);
}

}  // namespace powersweep
