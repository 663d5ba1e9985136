#include "agent/platform/host/rapl.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

absl::StatusOr<int64_t> ReadCounter(ProcFile& f) {
  PS_ASSIGN_OR_RETURN(std::string text, f.Read());
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &v)) {
    return absl::DataLossError(
        absl::StrCat(f.path(), ": not a number: '", text, "'"));
  }
  return v;
}

}  // namespace

int64_t EnergyDeltaUj(int64_t prev_uj, int64_t now_uj, int64_t max_range_uj) {
  if (now_uj >= prev_uj) return now_uj - prev_uj;
  return now_uj + (max_range_uj - prev_uj);
}

absl::StatusOr<RaplReader> RaplReader::Open(const std::string& powercap_dir) {
  std::error_code ec;
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(powercap_dir, ec)) {
    const std::string name = e.path().filename().string();
    // intel-rapl:P (package) and intel-rapl:P:S (subdomain); the bare
    // "intel-rapl" control type directory has no counter.
    if (absl::StartsWith(name, "intel-rapl:")) dirs.push_back(e.path().string());
  }
  if (ec || dirs.empty()) {
    return absl::NotFoundError(
        absl::StrCat(powercap_dir, ": no intel-rapl:* power domains"));
  }
  std::sort(dirs.begin(), dirs.end());
  RaplReader r;
  for (const std::string& dir : dirs) {
    Domain d;
    const std::string base = std::filesystem::path(dir).filename().string();
    d.top_level = std::count(base.begin(), base.end(), ':') == 1;
    d.name = FirstLine(dir + "/name");
    if (d.name.empty()) d.name = base;
    if (!absl::SimpleAtoi(FirstLine(dir + "/max_energy_range_uj"),
                          &d.max_range_uj) ||
        d.max_range_uj <= 0) {
      return absl::NotFoundError(
          absl::StrCat(dir, "/max_energy_range_uj: missing or not a number"));
    }
    d.energy = ProcFile(dir + "/energy_uj");
    PS_RETURN_IF_ERROR((ReadCounter(d.energy)).status());
    r.domains_.push_back(std::move(d));
  }
  return r;
}

absl::StatusOr<RaplPower> RaplReader::Read(double t_s) {
  std::vector<int64_t> now(domains_.size());
  for (size_t i = 0; i < domains_.size(); ++i) {
    PS_ASSIGN_OR_RETURN(int64_t v, ReadCounter(domains_[i].energy));
    now[i] = v;
  }
  RaplPower out;
  const double dt = t_s - prev_t_s_;
  if (have_prev_ && dt > 0) {
    for (size_t i = 0; i < domains_.size(); ++i) {
      const Domain& d = domains_[i];
      const double uj =
          static_cast<double>(EnergyDeltaUj(d.prev_uj, now[i], d.max_range_uj));
      RaplRail rail{d.name, uj / 1000.0 / dt, d.top_level};
      if (rail.top_level) out.total_mw += rail.power_mw;
      out.rails.push_back(std::move(rail));
    }
  }
  for (size_t i = 0; i < domains_.size(); ++i) domains_[i].prev_uj = now[i];
  have_prev_ = true;
  prev_t_s_ = t_s;
  return out;
}

}  // namespace powersweep
