// TwinKernelCost: a DeepBench-style kernel (common/kernel_shape.h) as the
// twin's performance model sees a workload, so twin fleets sweep kernels
// across power modes like models (labelled simulated like every twin run).
// One timed iteration is one minibatch of batch size 1 whose
//   forward_macs  = FLOPs / 2 (an rnn fwdbwd shape's FLOPs include the
//                   backward pass; the twin runs kernels as inference, so
//                   the model's 3x training factor is not applied again),
//   activations   = bytes moved / 8 (the model counts activations written
//                   and read once, float32: 8 bytes each),
//   kernels       = the launches per iteration of KernelCostOf (LibTorch
//                   CPU counts, common/kernel_shape.cc), which also set the
//                   GPU occupancy (work per kernel),
// no parameters, and a data set of nothing: the operands are made in
// memory before timing (the runner's warm-up), so the iteration stalls
// only for the hand-over (TwinKernelShape: preload, one minibatch).
// Pure functions; thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_KERNEL_COST_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_KERNEL_COST_H_

#include "agent/platform/twin/perf_model.h"
#include "common/kernel_shape.h"

namespace powersweep {

// The dataset name of a kernel's DatasetCost ("kernel-operands").
inline constexpr char kKernelDatasetName[] = "kernel-operands";

// The workload shape of `kernel` for PerfModel.
TwinWorkloadShape TwinKernelShape(const KernelShape& kernel);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_KERNEL_COST_H_
