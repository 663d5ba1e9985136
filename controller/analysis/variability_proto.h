// A variability report (variability.h) as the Control API's
// VariabilityResponse, every figure a number. Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_PROTO_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_PROTO_H_

#include <cstdint>
#include <string>

#include "controller/analysis/variability.h"
#include "powersweep/v1/control.pb.h"

namespace powersweep {

v1::VariabilityResponse ToVariabilityResponse(int64_t sweep_id,
                                              const VariabilityReport& report);

// One line on how the figures are computed (VariabilityResponse.method).
std::string VariabilityMethod();

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_VARIABILITY_PROTO_H_
