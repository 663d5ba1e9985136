// Minibatch and BuildMinibatch: turning sampled dataset items into model
// input.
//
// BuildMinibatch(data, indices, count, seed, epoch, first_position) makes a
// float tensor (count, C, H, W) with (C, H, W) = data.shape() and an int64
// tensor (count) of labels; sample b is written by
// data.Load(indices[b], SampleAugmentationSeed(seed, epoch,
// first_position + b), ...) straight into the tensor's memory, so it is
// decoded, augmented and normalised by the Dataset (see dataset.h).
// A failing Load is returned as is (its message names the file). May throw
// c10::Error (e.g. allocation failure); callers run it inside
// CatchTorchErrors. Thread-safe for concurrent calls on the same dataset.
#ifndef POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_
#define POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_

#include <torch/torch.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

struct Minibatch {
  int64_t index = 0;  // 0-based over the whole run
  int64_t epoch = 0;
  int64_t samples = 0;
  torch::Tensor images;  // float (samples, C, H, W)
  torch::Tensor labels;  // int64 (samples)
};

absl::StatusOr<Minibatch> BuildMinibatch(const Dataset& data,
                                         const int32_t* indices, int64_t count,
                                         uint64_t seed, int64_t epoch,
                                         int64_t first_position);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_
