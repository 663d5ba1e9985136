// TwinPlatform::DescribeKnobs / DescribeSensors: what `powersweep-agent
// probe --platform twin` prints. Every value is simulated.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/platform/twin/twin_platform.h"

namespace powersweep {
namespace {

KnobReport Knob(const std::string& name, int64_t current,
                const std::vector<int64_t>& table) {
  KnobReport k;
  k.knob = name;
  k.current = absl::StrCat(current);
  k.settable = !table.empty();
  k.range = table.empty() ? "no table"
                          : absl::StrCat(table.size(), " steps ", table.front(),
                                         "..", table.back());
  k.note = "simulated (docs/twin-model.md)";
  k.provenance = v1::PROVENANCE_SIMULATED;
  return k;
}

}  // namespace

std::vector<KnobReport> TwinPlatform::DescribeKnobs() {
  const OperatingPoint op = Current();
  KnobReport cores;
  cores.knob = "cpu_cores";
  cores.current = absl::StrCat(op.cores, " online");
  cores.settable = true;
  cores.range = absl::StrCat("1..", cls_->cores);
  cores.note = "simulated (docs/twin-model.md)";
  cores.provenance = v1::PROVENANCE_SIMULATED;
  return {cores, Knob("cpu_freq_khz", op.cpu_khz, cls_->cpu_freqs_khz),
          Knob("gpu_freq_hz", op.gpu_hz, cls_->gpu_freqs_hz),
          Knob("mem_freq_hz", op.mem_hz, cls_->mem_freqs_hz)};
}

std::vector<SensorReport> TwinPlatform::DescribeSensors() {
  std::vector<SensorReport> out;
  for (const RailSpec& r : cls_->rails) {
    out.push_back({r.name, r.is_total ? "rail (board total)" : "rail",
                   "model: agent/platform/twin/power_model.h",
                   v1::PROVENANCE_SIMULATED});
  }
  return out;
}

}  // namespace powersweep
