#include "controller/cli/model_args.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/enum_text.h"

namespace powersweep {
namespace {

struct Unit {
  const char* suffix;   // lower case, as matched
  const char* display;  // as written in messages
  double factor;        // to the base unit
};

// A positive finite number followed by one of `units` (case-insensitive,
// spaces allowed between).
absl::StatusOr<double> ParseWithUnit(const std::string& flag,
                                     const std::string& text,
                                     const std::vector<Unit>& units,
                                     const std::string& example) {
  std::vector<std::string> names;
  for (const Unit& u : units) names.push_back(u.display);
  const std::string known = absl::StrJoin(names, ", ");
  const std::string t(absl::StripAsciiWhitespace(text));
  if (t.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": missing value (a number and a unit: ", known,
                     ", e.g. ", example, ")"));
  }
  // The longest known unit the text ends with ("ms" before "s").
  const std::string lower = absl::AsciiStrToLower(t);
  const Unit* found = nullptr;
  for (const Unit& u : units) {
    const std::string suffix = u.suffix;
    if (lower.size() >= suffix.size() &&
        lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) ==
            0 &&
        (found == nullptr ||
         suffix.size() > std::string(found->suffix).size())) {
      found = &u;
    }
  }
  if (found == nullptr) {
    size_t alpha = t.size();
    while (alpha > 0 &&
           std::isalpha(static_cast<unsigned char>(t[alpha - 1]))) {
      --alpha;
    }
    if (alpha == t.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": '", text, "' has no unit (use ", known,
                       ", e.g. ", example, ")"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": unknown unit '", t.substr(alpha), "' in '", text,
                     "' (use ", known, ")"));
  }
  const std::string number(absl::StripAsciiWhitespace(
      t.substr(0, t.size() - std::string(found->suffix).size())));
  double value = 0;
  if (!absl::SimpleAtod(number, &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", number, "' in '", text, "' is not a number"));
  }
  if (!(value > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": must be positive, got '", text, "'"));
  }
  return value * found->factor;
}

// A positive number of MHz as an integer count of `per_mhz` units.
absl::StatusOr<int64_t> Scaled(const std::string& key, const std::string& value,
                               double per_mhz) {
  double x = 0;
  if (!absl::SimpleAtod(value, &x) || !std::isfinite(x) || !(x > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--mode: ", key, "=", value, ": expected a positive number"));
  }
  return static_cast<int64_t>(std::llround(x * per_mhz));
}

}  // namespace

absl::StatusOr<double> ParseTimeBudget(const std::string& flag,
                                       const std::string& text) {
  return ParseWithUnit(flag, text,
                       {{"s", "s", 1}, {"ms", "ms", 1e-3}, {"min", "min", 60}},
                       "90s");
}

absl::StatusOr<double> ParsePowerBudget(const std::string& flag,
                                        const std::string& text) {
  return ParseWithUnit(flag, text, {{"w", "W", 1}, {"mw", "mW", 1e-3}}, "15W");
}

absl::StatusOr<double> ParseEnergyBudget(const std::string& flag,
                                         const std::string& text) {
  return ParseWithUnit(flag, text, {{"j", "J", 1}, {"kj", "kJ", 1e3}}, "300J");
}

absl::StatusOr<v1::PowerMode> ParseModeFlag(const std::string& text) {
  constexpr char kKnown[] =
      "cores, cpu_mhz, cpu_khz, gpu_mhz, gpu_hz, mem_mhz, mem_hz, preset, "
      "cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz";
  v1::PowerMode m;
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(
        "--mode: empty (e.g. --mode cores=4,cpu_mhz=1190.4,gpu_mhz=1377)");
  }
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, '=');
    const std::string key(absl::StripAsciiWhitespace(kv.first));
    const std::string value(absl::StripAsciiWhitespace(kv.second));
    if (value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--mode: '", part, "' is not key=value (keys: ", kKnown, ")"));
    }
    absl::StatusOr<int64_t> v;
    if (key == "preset") {
      m.set_preset(value);
      continue;
    }
    if (key == "cores" || key == "cpu_cores") {
      int cores = 0;
      if (!absl::SimpleAtoi(value, &cores) || cores <= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--mode: ", key, "=", value, ": expected a positive integer"));
      }
      m.set_cpu_cores(cores);
      continue;
    }
    if (key == "cpu_mhz") {
      v = Scaled(key, value, 1e3);
      if (v.ok()) m.set_cpu_freq_khz(*v);
    } else if (key == "cpu_khz" || key == "cpu_freq_khz") {
      v = Scaled(key, value, 1);
      if (v.ok()) m.set_cpu_freq_khz(*v);
    } else if (key == "gpu_mhz") {
      v = Scaled(key, value, 1e6);
      if (v.ok()) m.set_gpu_freq_hz(*v);
    } else if (key == "gpu_hz" || key == "gpu_freq_hz") {
      v = Scaled(key, value, 1);
      if (v.ok()) m.set_gpu_freq_hz(*v);
    } else if (key == "mem_mhz") {
      v = Scaled(key, value, 1e6);
      if (v.ok()) m.set_mem_freq_hz(*v);
    } else if (key == "mem_hz" || key == "mem_freq_hz") {
      v = Scaled(key, value, 1);
      if (v.ok()) m.set_mem_freq_hz(*v);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--mode: unknown key '", key, "' in '", text,
                       "' (known: ", kKnown, ")"));
    }
    if (!v.ok()) return v.status();
  }
  return m;
}

absl::StatusOr<v1::Task> ParseTaskFlag(const std::string& flag,
                                       const std::string& text) {
  if (text.empty()) return v1::TASK_UNSPECIFIED;
  if (std::optional<v1::Task> task = ParseWorkloadTask(text)) return *task;
  return absl::InvalidArgumentError(
      absl::StrCat(flag, ": '", text, "' is not train or infer"));
}

absl::StatusOr<int> ParsePositiveIntFlag(const std::string& flag,
                                         const std::string& text) {
  int n = 0;
  if (!absl::SimpleAtoi(text, &n) || n <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": expected a positive integer, got '", text, "'"));
  }
  return n;
}

PreparedArgs PrepareArgs(int argc, char** argv) {
  PreparedArgs out;
  std::vector<std::string> sweeps;
  bool flags_ended = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") flags_ended = true;
    if (i > 0 && !flags_ended && a.size() > 2 && a.rfind("--", 0) == 0) {
      const size_t eq = a.find('=');
      const size_t end = eq == std::string::npos ? a.size() : eq;
      for (size_t j = 2; j < end; ++j) {
        if (a[j] == '-') a[j] = '_';
      }
      for (const std::string name : {"--mode", "--sweep"}) {
        std::vector<std::string>& into = name == "--mode" ? out.modes : sweeps;
        if (a == name) {
          if (i + 1 >= argc) {
            out.problem = name + ": missing value";
          } else {
            into.push_back(argv[++i]);
          }
          a.clear();
        } else if (a.rfind(name + "=", 0) == 0) {
          into.push_back(a.substr(name.size() + 1));
          a.clear();
        }
      }
      if (a.empty()) continue;
    }
    out.args.push_back(std::move(a));
  }
  if (!sweeps.empty() && !out.args.empty()) {
    out.args.insert(out.args.begin() + 1,
                    absl::StrCat("--sweep=", absl::StrJoin(sweeps, ",")));
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> ParseSweepsFlag(const std::string& text) {
  std::vector<int64_t> out;
  for (absl::string_view part :
       absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    int64_t id = 0;
    if (!absl::SimpleAtoi(part, &id) || id <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sweep: '", part,
                       "' is not a sweep id (a positive number; several: "
                       "--sweep 8,12)"));
    }
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

}  // namespace powersweep
