#include "controller/cli/top_view.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/enum_text.h"
#include "common/sample_readings.h"

namespace powersweep {
namespace {

std::string Fixed(double v, int digits) {
  return absl::StrFormat("%.*f", digits, v);
}

}  // namespace

std::string TopState(const v1::DeviceStatus& d) {
  if (!d.connected()) return "offline";
  const bool failing = d.has_health() && !d.health().healthy();
  if (d.current_run_id() != 0) {
    std::string s = absl::StrCat("run ", d.current_run_id());
    if (d.drained()) absl::StrAppend(&s, " (drained)");
    return s;
  }
  if (failing) return "FAILING";
  if (d.drained()) return "drained";
  return "idle";
}

Table TopTable(const v1::ListDevicesResponse& devices, absl::Time now) {
  Table t;
  t.header = {"device", "class",   "state",   "power_w", "power_src",
              "temp_c", "cpu_pct", "cpu_mhz", "gpu_pct", "gpu_mhz",
              "emc_mhz", "mem_gib", "sample_age_s"};
  t.numeric = {false, false, false, true, false, true, true,
               true,  true,  true,  true, true,  true};
  for (const v1::DeviceStatus& d : devices.devices()) {
    std::vector<std::string> row = {d.identity().device_id(),
                                    d.identity().device_class(), TopState(d)};
    if (!d.connected() || !d.has_latest()) {
      row.resize(t.header.size(), "-");
      t.rows.push_back(std::move(row));
      continue;
    }
    const v1::TelemetrySample& s = d.latest();
    const bool power = s.power_mw() > 0;
    row.push_back(power ? Fixed(s.power_mw() / 1000, 2) : "-");
    row.push_back(power ? ProvenanceText(s.power_provenance()) : "-");
    const std::optional<double> celsius = BoardTemperature(s);
    row.push_back(celsius ? Fixed(*celsius, 1) : "-");
    row.push_back(Fixed(100 * s.cpu_util(), 0));
    const int64_t cpu_khz = HighestCoreKhz(s);
    row.push_back(cpu_khz > 0 ? Fixed(cpu_khz / 1000.0, 0) : "-");
    const bool gpu = s.gpu_freq_hz() > 0;
    row.push_back(gpu ? Fixed(100 * s.gpu_util(), 0) : "-");
    row.push_back(gpu ? Fixed(s.gpu_freq_hz() / 1e6, 0) : "-");
    row.push_back(s.mem_freq_hz() > 0 ? Fixed(s.mem_freq_hz() / 1e6, 0)
                                      : "-");
    row.push_back(s.mem_total_bytes() > 0
                      ? absl::StrCat(Fixed(s.mem_used_bytes() / 1073741824.0, 1),
                                     "/",
                                     Fixed(s.mem_total_bytes() / 1073741824.0, 1))
                      : "-");
    const double age_s =
        d.latest_unix_ms() > 0
            ? std::max(0.0, absl::ToDoubleSeconds(
                                now - absl::FromUnixMillis(d.latest_unix_ms())))
            : -1;
    row.push_back(age_s >= 0 ? Fixed(age_s, 0) : "-");
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string TopHeader(const std::string& controller,
                      const v1::ListDevicesResponse& devices,
                      const v1::ListSweepsResponse& sweeps, absl::Time now,
                      absl::TimeZone zone) {
  int connected = 0, running = 0, failing = 0;
  for (const v1::DeviceStatus& d : devices.devices()) {
    if (!d.connected()) continue;
    ++connected;
    if (d.current_run_id() != 0) ++running;
    if (d.has_health() && !d.health().healthy()) ++failing;
  }
  std::string line = absl::StrCat(
      "powersweep top  ", controller, "  ",
      absl::FormatTime("%H:%M:%S", now, zone), "  ",
      devices.devices_size(), " device", devices.devices_size() == 1 ? "" : "s",
      ": ", connected, " connected, ", running, " running");
  if (failing > 0) absl::StrAppend(&line, ", ", failing, " failing");
  std::vector<std::string> active;
  for (const v1::SweepStatus& s : sweeps.sweeps()) {
    if (s.finished()) continue;
    std::string one = absl::StrCat("sweep ", s.sweep_id(), " '", s.name(),
                                   "': ", s.done(), "/", s.total(), " done, ",
                                   s.active(), " running");
    if (s.failed() > 0) absl::StrAppend(&one, ", ", s.failed(), " failed");
    // Why runs wait, one line each under the sweep.
    for (const std::string& w : s.waiting()) absl::StrAppend(&one, "\n  ", w);
    active.push_back(std::move(one));
  }
  absl::StrAppend(&line, "\n", active.empty() ? "no sweep in progress"
                                             : absl::StrJoin(active, "\n"));
  return line;
}

}  // namespace powersweep
