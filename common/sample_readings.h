// What the agent, the live view and the metrics page read off a telemetry
// sample the same way: the board temperature and the CPU clock.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_COMMON_SAMPLE_READINGS_H_
#define POWERSWEEP_COMMON_SAMPLE_READINGS_H_

#include <cstdint>
#include <optional>

#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

// The hottest temperature of `sample`, PMIC excluded (its die runs hotter
// than the board); nullopt without one. The health check's limit, settle's
// band and `powersweep top` all judge the board by it.
std::optional<double> BoardTemperature(const v1::TelemetrySample& sample);

// The highest clock of the sampled cores (kHz); 0 when none was read.
int64_t HighestCoreKhz(const v1::TelemetrySample& sample);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_SAMPLE_READINGS_H_
