#include "common/sample_readings.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace powersweep {

std::optional<double> BoardTemperature(const v1::TelemetrySample& sample) {
  std::optional<double> hottest;
  for (const v1::Temperature& t : sample.temperatures()) {
    if (absl::StrContains(absl::AsciiStrToLower(t.name()), "pmic")) continue;
    if (!hottest || t.celsius() > *hottest) hottest = t.celsius();
  }
  return hottest;
}

int64_t HighestCoreKhz(const v1::TelemetrySample& sample) {
  int64_t khz = 0;
  for (const v1::CoreSample& core : sample.cores()) {
    khz = std::max(khz, core.freq_khz());
  }
  return khz;
}

}  // namespace powersweep
