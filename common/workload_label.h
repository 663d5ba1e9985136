// A fitted model's workload as one line of text, as model answers and the
// CLI's model tables show it:
//   "lenet5 fashion-mnist train batch 64 workers 0 on xavier-agx"
// with " (container)" and ", N tenants" when they apply. Thread-safe.
#ifndef POWERSWEEP_COMMON_WORKLOAD_LABEL_H_
#define POWERSWEEP_COMMON_WORKLOAD_LABEL_H_

#include <string>

#include "powersweep/v1/modeling.pb.h"

namespace powersweep {

std::string WorkloadLabel(const ::powersweep::v1::WorkloadModel& m);

// The sweeps a model rests on: "sweep 8", or "sweeps 8, 12" for a fit of
// several (WorkloadModel.sweep_ids).
std::string SweepsText(const ::powersweep::v1::WorkloadModel& m);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_WORKLOAD_LABEL_H_
