// KernelIteration: the operands of one kernel shape on a device and the
// work of one iteration (see kernel_runner.h for what each family runs).
// Build allocates the operands (random, from torch's seeded generator);
// Run performs one iteration and returns when the device has finished it.
// Not thread-safe.
#ifndef POWERSWEEP_WORKLOADS_KERNELS_KERNEL_ITERATION_H_
#define POWERSWEEP_WORKLOADS_KERNELS_KERNEL_ITERATION_H_

#include <torch/torch.h>

#include <memory>

#include "common/kernel_shape.h"

namespace powersweep {

class KernelIteration {
 public:
  virtual ~KernelIteration() = default;
  virtual void Run() = 0;

  static std::unique_ptr<KernelIteration> Build(const KernelShape& shape,
                                                const torch::Device& device);
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_KERNELS_KERNEL_ITERATION_H_
