#include "agent/probe/probe_report.h"

#include <algorithm>
#include <atomic>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "agent/telemetry/sampler.h"
#include "common/enum_text.h"
#include "common/power/power_catalog.h"

namespace powersweep {
namespace {

// Left-aligned columns separated by two spaces, indented by two.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line.append(width[i] - row[i].size() + 1, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string Mib(int64_t bytes) {
  return absl::StrFormat("%.0f MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string SampleText(const v1::TelemetrySample& s) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> freqs;
  for (const v1::CoreSample& c : s.cores()) {
    freqs.push_back(c.freq_khz() > 0 ? absl::StrCat(c.freq_khz()) : "?");
  }
  rows.push_back({"cpu util", absl::StrFormat("%.1f%% over %d CPUs",
                                              100 * s.cpu_util(),
                                              s.cores_size())});
  rows.push_back({"cpu freq kHz", freqs.empty() ? "-" : absl::StrJoin(freqs, " ")});
  rows.push_back({"gpu", s.gpu_freq_hz() > 0
                             ? absl::StrFormat("%.1f%% at %d Hz",
                                               100 * s.gpu_util(),
                                               s.gpu_freq_hz())
                             : "-"});
  rows.push_back({"mem freq", s.mem_freq_hz() > 0
                                  ? absl::StrCat(s.mem_freq_hz(), " Hz")
                                  : "-"});
  rows.push_back({"memory", s.mem_total_bytes() > 0
                                ? absl::StrCat(Mib(s.mem_used_bytes()),
                                               " used of ",
                                               Mib(s.mem_total_bytes()))
                                : "-"});
  for (const v1::RailSample& r : s.rails()) {
    rows.push_back({absl::StrCat("rail ", r.name()),
                    absl::StrFormat("%.0f mW (%s)", r.power_mw(),
                                    ProvenanceText(r.provenance()))});
  }
  rows.push_back({"power",
                  s.power_provenance() == v1::PROVENANCE_UNSPECIFIED
                      ? "unknown (a first sample may have none)"
                      : absl::StrFormat("%.0f mW (%s)", s.power_mw(),
                                        ProvenanceText(s.power_provenance()))});
  for (const v1::Temperature& t : s.temperatures()) {
    rows.push_back({absl::StrCat("temp ", t.name()),
                    absl::StrFormat("%.1f C", t.celsius())});
  }
  return Table(rows);
}

}  // namespace

std::pair<int64_t, std::string> CustomSpaceSize(
    const v1::DeviceCapabilities& caps) {
  const int64_t n[] = {caps.cpu_cores(), caps.cpu_freqs_khz_size(),
                       caps.gpu_freqs_hz_size(), caps.mem_freqs_hz_size()};
  int64_t size = 1;
  std::vector<std::string> parts;
  for (int64_t v : n) {
    const int64_t f = std::max<int64_t>(v, 1);
    size *= f;
    parts.push_back(absl::StrCat(f));
  }
  return {size, absl::StrCat(absl::StrJoin(parts, " x "), " = ", size,
                             " (cores x cpu x gpu x mem steps)")};
}

v1::TelemetrySample TakeProbeSample(Platform* platform, Clock* clock,
                                    const std::string& proc_root,
                                    double interval_s) {
  Sampler sampler(platform, clock);
  SamplerOptions opts;
  opts.hz = 1.0 / interval_s;
  opts.cpus = platform->RunCpus();
  opts.run_start_mono_ns = clock->MonotonicNanos();
  opts.proc_root = proc_root;
  v1::TelemetrySample first;
  absl::Notification got;
  std::atomic<bool> taken{false};
  sampler.Start(opts, [&](const v1::TelemetrySample& s) {
    if (taken.exchange(true)) return;
    first = s;
    got.Notify();
  });
  got.WaitForNotification();
  sampler.Stop();
  return first;
}

std::string FormatProbeReport(const ProbeInput& in) {
  std::ostringstream out;
  out << "powersweep-agent probe: platform " << in.platform_name;
  if (!in.root.empty() && in.root != "/") out << ", root " << in.root;
  out << "\n";
  for (const std::string& w : in.warnings) out << "warning: " << w << "\n";

  const v1::DeviceIdentity& id = in.identity;
  std::vector<std::vector<std::string>> device = {
      {"device id", id.device_id()},
      {"class", id.device_class()},
      {"hostname", id.hostname()},
      {"serial", id.serial().empty() ? "-" : id.serial()},
      {"kernel", id.kernel()}};
  if (!id.l4t_release().empty()) device.push_back({"L4T", id.l4t_release()});
  for (const auto& [k, v] : in.details) device.push_back({k, v});
  device.push_back({"memory", Mib(in.capabilities.memory_bytes())});
  device.push_back({"agent", id.agent_version()});
  out << "\nDevice\n" << Table(device);

  std::vector<std::vector<std::string>> knobs = {
      {"KNOB", "CURRENT", "SETTABLE", "RANGE", "PROVENANCE", "HOW / WHY NOT"}};
  for (const KnobReport& k : in.knobs) {
    knobs.push_back({k.knob, k.current.empty() ? "?" : k.current,
                     k.settable ? "yes" : "no", k.range.empty() ? "-" : k.range,
                     k.provenance == v1::PROVENANCE_UNSPECIFIED
                         ? "-"
                         : ProvenanceText(k.provenance),
                     k.note});
  }
  out << "\nKnobs\n" << Table(knobs);

  std::vector<std::vector<std::string>> sensors = {
      {"SENSOR", "KIND", "PROVENANCE", "SOURCE"}};
  for (const SensorReport& s : in.sensors) {
    sensors.push_back({s.name, s.kind, ProvenanceText(s.provenance),
                       s.source});
  }
  out << "\nRails and sensors\n";
  out << (in.sensors.empty() ? "  none found\n" : Table(sensors));

  out << "\nPower modes\n";
  std::vector<std::vector<std::string>> modes;
  modes.push_back({"presets", in.preset_names.empty()
                                  ? "none"
                                  : absl::StrJoin(in.preset_names, " ")});
  if (!in.presets_source.empty()) {
    modes.push_back({"nvpmodel from", in.presets_source});
  }
  modes.push_back({"custom space", CustomSpaceSize(in.capabilities).second});
  out << Table(modes);

  out << "\nTelemetry sample\n";
  out << (in.have_sample ? SampleText(in.sample) : "  none taken\n");
  return out.str();
}

std::string ProbeReport(const std::string& platform_name, Platform* platform,
                        Clock* clock) {
  ProbeInput in;
  in.platform_name = platform_name;
  in.identity = platform->Identity();
  in.capabilities = platform->Capabilities();
  in.knobs = platform->DescribeKnobs();
  in.sensors = platform->DescribeSensors();
  ProbeDetails details = platform->DescribeProbe();
  in.root = details.root;
  in.details = std::move(details.details);
  in.presets_source = std::move(details.presets_source);
  in.preset_names =
      details.preset_names.has_value()
          ? *std::move(details.preset_names)
          : PowerCatalog::Default().PresetNames(in.identity.device_class());
  in.warnings = std::move(details.warnings);
  const std::string proc_root = in.root.empty() ? "/proc" : in.root + "/proc";
  in.sample = TakeProbeSample(platform, clock, proc_root, 0.25);
  in.have_sample = true;
  return FormatProbeReport(in);
}

}  // namespace powersweep
