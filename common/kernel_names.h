// The kernel families powersweep runs as workloads (DeepBench-style
// micro-benchmarks): a sweep names one as `KERNEL/SHAPE` in `workloads`,
// where SHAPE is a row of the built-in DeepBench table or an explicit shape
// (common/kernel_shape.h). They are not models (common/model_names.h): they
// have no data set, parameters or loss. powersweep-workload runs them
// (workloads/kernels/), agents offer them (agent/run/catalog.h), the
// controller's workload catalog accepts them (controller/sweep/catalog.cc)
// and the twin costs them (agent/platform/twin/kernel_cost.cc).
#ifndef POWERSWEEP_COMMON_KERNEL_NAMES_H_
#define POWERSWEEP_COMMON_KERNEL_NAMES_H_

#include <array>
#include "absl/strings/string_view.h"

namespace powersweep {

// Sorted by name.
inline constexpr std::array<const char*, 3> kKernelNames = {"conv", "gemm",
                                                            "rnn"};

// Whether `name` is one of kKernelNames.
inline bool IsKernelName(absl::string_view name) {
  for (const char* k : kKernelNames) {
    if (name == k) return true;
  }
  return false;
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_KERNEL_NAMES_H_
