// RunKernel: one DeepBench-style kernel run (config.model "gemm", "conv" or
// "rnn", config.kernel_shape its shape; common/kernel_shape.h).
//
// Before allocating anything it checks the shape's footprint (operands,
// results, gradients and workspace; KernelCostOf) against the memory this
// process can get (available_memory.h) and fails with kResourceExhausted
// naming both figures instead of being OOM-killed. Then it sets the
// threads and seed, allocates random float32 operands on the device (CUDA
// when LibTorch has it, else the CPU), runs config.warmup_iterations
// untimed iterations (all but the first counted by a LaunchCounter: the
// launches per iteration), writes the `started` event (WorkloadInfo with
// model = the kernel, forward_macs = FLOPs / 2 and KernelInfo), then one
// `minibatch` event per timed iteration (samples 1, stall 0, compute_s the
// iteration, synchronised with the device on CUDA, e2e_s from the previous
// iteration's end) until the stop condition (--minibatches, --duration-s),
// and `finished`.
//
// What one iteration runs:
//   gemm  at::matmul_out into a preallocated C, of op(A) and op(B)
//         (transposed views made once, before timing);
//   conv  forward: torch::conv2d (no bias); bwd-data / bwd-filter:
//         at::convolution_backward with only that gradient asked for;
//   rnn   the full torch::nn::RNN (tanh) / LSTM / GRU module, one layer,
//         input size = hidden, over a T x B x H input from a zero state;
//         fwdbwd adds torch::autograd::grad of the output (with a fixed
//         random output gradient) to the input and every parameter.
//
// Errors: kResourceExhausted (too big), kInternal for torch errors,
// kUnavailable when a record cannot be written. `config` must have passed
// ValidateRunConfig. Runs on the calling thread.
#ifndef POWERSWEEP_WORKLOADS_KERNELS_KERNEL_RUNNER_H_
#define POWERSWEEP_WORKLOADS_KERNELS_KERNEL_RUNNER_H_

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "powersweep/v1/records.pb.h"
#include "workloads/runner/record_sink.h"
#include "workloads/runner/run_config.h"

namespace powersweep {

absl::StatusOr<::powersweep::v1::WorkloadFinished> RunKernel(
    const RunConfig& config, Clock* clock, RecordSink* sink);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_KERNELS_KERNEL_RUNNER_H_
