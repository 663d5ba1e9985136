#include "controller/importer/tegrastats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/power/board_rails.h"

namespace powersweep {
namespace {

constexpr int64_t kMiB = 1024 * 1024;

bool IsNumber(absl::string_view s, double* v) {
  return !s.empty() && absl::SimpleAtod(s, v);
}

// "2257/30536MB" -> used, total bytes.
bool ParseRam(absl::string_view tok, int64_t* used, int64_t* total) {
  int64_t unit = kMiB;
  if (absl::ConsumeSuffix(&tok, "MB")) {
    unit = kMiB;
  } else if (absl::ConsumeSuffix(&tok, "kB")) {
    unit = 1024;
  } else {
    return false;
  }
  std::vector<absl::string_view> parts = absl::StrSplit(tok, '/');
  int64_t u = 0, t = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &u) ||
      !absl::SimpleAtoi(parts[1], &t)) {
    return false;
  }
  *used = u * unit;
  *total = t * unit;
  return true;
}

// "12%@729", "12%", "0%@[0,0]", "0%@[114]", and Thor's "@[1575,1575,1575]"
// (no utilisation) -> util 0..1 and the highest frequency in MHz (0 when
// absent). `has_util` says whether a utilisation was printed.
bool ParseLoad(absl::string_view tok, double* util, double* mhz,
               bool* has_util = nullptr) {
  std::vector<absl::string_view> parts = absl::StrSplit(tok, '@');
  absl::string_view pct = parts[0];
  *util = 0;
  *mhz = 0;
  if (has_util != nullptr) *has_util = !pct.empty();
  if (pct.empty()) {
    if (has_util == nullptr || parts.size() != 2) return false;
  } else {
    if (!absl::ConsumeSuffix(&pct, "%")) return false;
    double p = 0;
    if (!IsNumber(pct, &p)) return false;
    *util = p / 100.0;
  }
  if (parts.size() == 1) return true;
  if (parts.size() != 2) return false;
  absl::string_view f = parts[1];
  absl::ConsumePrefix(&f, "[");
  absl::ConsumeSuffix(&f, "]");
  for (absl::string_view one : absl::StrSplit(f, ',')) {
    double v = 0;
    if (!IsNumber(one, &v)) return false;
    *mhz = std::max(*mhz, v);
  }
  return true;
}

// "2390mW/2390mW" (JetPack 5+), "463/463" (JetPack 4), or current/average/
// maximum "2390mW/2390mW/4100mW" -> current mW.
bool ParseRail(absl::string_view tok, double* mw) {
  std::vector<absl::string_view> parts = absl::StrSplit(tok, '/');
  if (parts.size() != 2 && parts.size() != 3) return false;
  const bool units = absl::EndsWith(parts[0], "mW");
  for (absl::string_view& p : parts) {
    if (absl::ConsumeSuffix(&p, "mW") != units) return false;
    double v = 0;
    if (!IsNumber(p, &v)) return false;
    for (char ch : p) {
      if (!absl::ascii_isdigit(ch) && ch != '.') return false;
    }
  }
  return IsNumber(parts[0], mw);
}

bool IsRailName(absl::string_view name) {
  if (name.empty() || !absl::ascii_isupper(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isupper(c) || absl::ascii_isdigit(c) || c == '_';
  });
}

// "CPU@41.437C", "tj@41.656C", "cpu@52.562C", and JetPack 7.2's current/
// maximum "cpu@45.375C/45.812C" (the current value is kept).
bool ParseTemperature(absl::string_view tok, std::string* name, double* c) {
  const size_t at = tok.find('@');
  if (at == absl::string_view::npos || at == 0) return false;
  absl::string_view value = tok.substr(at + 1);
  value = value.substr(0, value.find('/'));
  if (!absl::ConsumeSuffix(&value, "C")) return false;
  if (!IsNumber(value, c)) return false;
  *name = std::string(tok.substr(0, at));
  return true;
}

absl::Status ParseCores(absl::string_view tok, v1::TelemetrySample* s) {
  absl::string_view list = tok;
  if (!absl::ConsumePrefix(&list, "[") || !absl::ConsumeSuffix(&list, "]")) {
    return absl::InvalidArgumentError(absl::StrCat("CPU list '", tok, "'"));
  }
  double sum = 0;
  int online = 0;
  for (absl::string_view core : absl::StrSplit(list, ',')) {
    v1::CoreSample* c = s->add_cores();
    if (core == "off") continue;
    double util = 0, mhz = 0;
    if (!ParseLoad(core, &util, &mhz)) {
      return absl::InvalidArgumentError(absl::StrCat("CPU entry '", core, "'"));
    }
    c->set_util(util);
    c->set_freq_khz(std::llround(mhz * 1000));
    sum += util;
    ++online;
  }
  if (online > 0) s->set_cpu_util(sum / online);
  return absl::OkStatus();
}

void SetTotal(v1::TelemetrySample* s) {
  double sum = 0;
  for (const v1::RailSample& r : s->rails()) {
    if (IsBoardInputRail(r.name())) {
      s->set_power_mw(r.power_mw());
      s->set_power_provenance(v1::PROVENANCE_MEASURED);
      return;
    }
    sum += r.power_mw();
  }
  if (s->rails_size() > 0) {
    s->set_power_mw(sum);
    s->set_power_provenance(v1::PROVENANCE_MEASURED);
  }
}

}  // namespace

absl::StatusOr<TegrastatsLine> ParseTegrastatsLine(absl::string_view line) {
  std::vector<absl::string_view> tok =
      absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
  TegrastatsLine out;
  size_t i = 0;
  if (tok.size() >= 2 && tok[0].size() == 10 && tok[0][2] == '-') {
    absl::Time t;
    std::string err;
    if (!absl::ParseTime("%m-%d-%Y %H:%M:%S", absl::StrCat(tok[0], " ", tok[1]),
                         absl::UTCTimeZone(), &t, &err)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad date '", tok[0], " ", tok[1], "': ", err));
    }
    out.date = t;
    i = 2;
  }
  v1::TelemetrySample& s = out.sample;
  bool have_ram = false;
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("malformed ", what));
  };
  for (; i < tok.size(); ++i) {
    const absl::string_view t = tok[i];
    const bool has_next = i + 1 < tok.size();
    const absl::string_view next = has_next ? tok[i + 1] : absl::string_view();
    if (t == "RAM" && has_next) {
      int64_t used = 0, total = 0;
      if (!ParseRam(next, &used, &total)) return bad(absl::StrCat("RAM '", next, "'"));
      s.set_mem_used_bytes(used);
      s.set_mem_total_bytes(total);
      have_ram = true;
      ++i;
    } else if ((t == "SWAP" || t == "IRAM") && has_next) {
      ++i;
    } else if (t == "CPU" && absl::StartsWith(next, "[")) {
      absl::Status st = ParseCores(next, &s);
      if (!st.ok()) return bad(st.message());
      ++i;
    } else if ((t == "EMC_FREQ" || t == "GR3D_FREQ") && has_next) {
      double util = 0, mhz = 0;
      bool has_util = true;
      if (!ParseLoad(next, &util, &mhz, t == "GR3D_FREQ" ? &has_util : nullptr)) {
        return bad(absl::StrCat(t, " '", next, "'"));
      }
      if (t == "EMC_FREQ") {
        s.set_mem_freq_hz(std::llround(mhz * 1e6));
      } else {
        s.set_gpu_util(util);
        s.set_gpu_freq_hz(std::llround(mhz * 1e6));
        out.gpu_util_reported = has_util;
      }
      ++i;
    } else if (double mw = 0; IsRailName(t) && has_next && ParseRail(next, &mw)) {
      if (t != "NC") {
        v1::RailSample* r = s.add_rails();
        r->set_name(std::string(t));
        r->set_power_mw(mw);
        r->set_provenance(v1::PROVENANCE_MEASURED);
      }
      ++i;
    } else {
      std::string name;
      double c = 0;
      if (ParseTemperature(t, &name, &c) && name != "PMIC" && c > -256) {
        v1::Temperature* temp = s.add_temperatures();
        temp->set_name(name);
        temp->set_celsius(c);
      }
    }
  }
  if (!have_ram) {
    return absl::InvalidArgumentError(
        "not a tegrastats line (no 'RAM used/totalMB')");
  }
  SetTotal(&s);
  return out;
}

absl::StatusOr<TegrastatsLog> ParseTegrastatsLog(std::istream& in,
                                                 double interval_ms) {
  if (!(interval_ms > 0) || !std::isfinite(interval_ms)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--interval_ms: must be positive, got ", interval_ms));
  }
  const double step_s = interval_ms / 1000.0;
  TegrastatsLog log;
  std::string line;
  int number = 0;
  double prev_t = 0;
  while (std::getline(in, line)) {
    ++number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    absl::StatusOr<TegrastatsLine> parsed = ParseTegrastatsLine(line);
    if (!parsed.ok()) {
      if (log.skipped_lines++ == 0) {
        log.first_problem =
            absl::StrCat("line ", number, ": ", parsed.status().message());
      }
      continue;
    }
    if (!parsed->gpu_util_reported) ++log.lines_without_gpu_util;
    double t = 0;
    if (log.samples.empty()) {
      log.first_date = parsed->date;
    } else if (parsed->date.has_value() && log.first_date.has_value()) {
      t = absl::ToDoubleSeconds(*parsed->date - *log.first_date);
      if (t <= prev_t) t = prev_t + step_s;
    } else {
      t = prev_t + step_s;
    }
    parsed->sample.set_t_s(t);
    prev_t = t;
    log.samples.push_back(std::move(parsed->sample));
  }
  if (log.samples.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no tegrastats line found",
        log.first_problem.empty() ? "" : " (" + log.first_problem + ")"));
  }
  return log;
}

absl::StatusOr<TegrastatsLog> ReadTegrastatsFile(const std::string& path,
                                                 double interval_ms) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  absl::StatusOr<TegrastatsLog> log = ParseTegrastatsLog(in, interval_ms);
  if (!log.ok()) {
    return absl::Status(log.status().code(),
                        absl::StrCat(path, ": ", log.status().message()));
  }
  return log;
}

}  // namespace powersweep
