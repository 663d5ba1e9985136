// Minibatch and BuildMinibatch: turning sampled images into model input.
//
// BuildMinibatch(data, indices, count, norm) gathers images
// data.image(indices[0..count)) into a float tensor (count, 1, rows, cols)
// with x = (pixel/255 - norm.mean) / norm.std, and their labels into an
// int64 tensor (count). It may throw c10::Error (e.g. allocation failure);
// callers run it inside CatchTorchErrors. Thread-safe for concurrent calls
// on the same (immutable) dataset.
#ifndef POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_
#define POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_

#include <torch/torch.h>

#include <cstdint>

#include "workloads/data/dataset.h"

namespace powersweep {

struct Normalization {
  float mean = 0.0f;
  float std = 1.0f;
};

// Per-pixel statistics of the Fashion-MNIST training set.
inline constexpr Normalization kFashionMnistNormalization{0.2860f, 0.3530f};

struct Minibatch {
  int64_t index = 0;  // 0-based over the whole run
  int64_t epoch = 0;
  int64_t samples = 0;
  torch::Tensor images;  // float (samples, 1, rows, cols)
  torch::Tensor labels;  // int64 (samples)
};

Minibatch BuildMinibatch(const ImageDataset& data, const int32_t* indices,
                         int64_t count, const Normalization& norm);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_PIPELINE_MINIBATCH_H_
