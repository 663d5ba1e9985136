// The report of `powersweep-agent probe`: what the agent finds on a device
// without a controller (identity, every knob with its current value and
// whether it can be set, rails and sensors, named modes and the size of the
// custom mode space, one telemetry sample), as plain text.
//
// TakeProbeSample reads utilization over `interval_s` (two /proc/stat
// reads) through the same Sampler the runs use. Pure formatting otherwise;
// thread-compatible.
#ifndef POWERSWEEP_AGENT_PROBE_PROBE_REPORT_H_
#define POWERSWEEP_AGENT_PROBE_PROBE_REPORT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "agent/platform/platform.h"
#include "common/clock.h"

namespace powersweep {

struct ProbeInput {
  std::string platform_name;   // "host", "jetson", "twin"
  std::string root;            // sysfs root (jetson), "" otherwise
  v1::DeviceIdentity identity;
  v1::DeviceCapabilities capabilities;
  // Extra identity lines, e.g. {"model", "Jetson AGX Orin"}.
  std::vector<std::pair<std::string, std::string>> details;
  std::vector<KnobReport> knobs;
  std::vector<SensorReport> sensors;
  std::string presets_source;  // where the nvpmodel presets come from
  std::vector<std::string> preset_names;
  std::vector<std::string> warnings;
  v1::TelemetrySample sample;
  bool have_sample = false;
};

// cores x |cpu| x |gpu| x |mem| of the capabilities (an empty table counts
// once), and the formula as text, e.g. "12 x 29 x 13 x 4 = 18096".
std::pair<int64_t, std::string> CustomSpaceSize(
    const v1::DeviceCapabilities& caps);

v1::TelemetrySample TakeProbeSample(Platform* platform, Clock* clock,
                                    const std::string& proc_root,
                                    double interval_s);

std::string FormatProbeReport(const ProbeInput& in);

// The whole report of `powersweep-agent probe --platform=<platform_name>`
// for `platform`, with one telemetry sample over 0.25 s.
std::string ProbeReport(const std::string& platform_name, Platform* platform,
                        Clock* clock);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PROBE_PROBE_REPORT_H_
