#include "agent/run/mode_readback.h"

#include <cstdint>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace powersweep {
namespace {

bool Explained(const v1::AppliedPowerMode& applied, const char* knob) {
  for (const std::string& note : applied.notes()) {
    if (absl::StrContains(note, knob)) return true;
  }
  return false;
}

}  // namespace

std::string ModeReadBackProblem(const v1::AppliedPowerMode& applied) {
  const v1::PowerMode& want = applied.requested();
  const v1::PowerMode& got = applied.actual();
  struct Knob {
    const char* name;
    int64_t requested;
    int64_t actual;
  };
  const Knob knobs[] = {
      {"cpu_cores", want.cpu_cores(), got.cpu_cores()},
      {"cpu_freq_khz", want.cpu_freq_khz(), got.cpu_freq_khz()},
      {"gpu_freq_hz", want.gpu_freq_hz(), got.gpu_freq_hz()},
      {"mem_freq_hz", want.mem_freq_hz(), got.mem_freq_hz()},
      {"gpu_power_limit_w", want.gpu_power_limit_w(),
       got.gpu_power_limit_w()},
  };
  std::vector<std::string> problems;
  for (const Knob& k : knobs) {
    if (k.requested == 0 || k.actual == 0 || k.actual == k.requested) continue;
    if (Explained(applied, k.name)) continue;
    problems.push_back(absl::StrCat(k.name, ": requested ", k.requested,
                                    ", read back ", k.actual,
                                    " with no clamp note"));
  }
  return absl::StrJoin(problems, "; ");
}

}  // namespace powersweep
