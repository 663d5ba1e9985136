#include "workloads/pipeline/minibatch.h"

#include "workloads/pipeline/epoch_order.h"

namespace powersweep {

absl::StatusOr<Minibatch> BuildMinibatch(const Dataset& data,
                                         const int32_t* indices, int64_t count,
                                         uint64_t seed, int64_t epoch,
                                         int64_t first_position) {
  const SampleShape shape = data.shape();
  const int64_t numel = shape.numel();
  Minibatch mb;
  mb.samples = count;
  mb.epoch = epoch;
  mb.images = torch::empty({count, shape.channels, shape.height, shape.width},
                           torch::kFloat32);
  mb.labels = torch::empty({count}, torch::kInt64);
  float* out = mb.images.data_ptr<float>();
  int64_t* labels = mb.labels.data_ptr<int64_t>();
  for (int64_t b = 0; b < count; ++b) {
    absl::Status st = data.Load(
        indices[b], SampleAugmentationSeed(seed, epoch, first_position + b),
        out + b * numel);
    if (!st.ok()) return st;
    labels[b] = data.label(indices[b]);
  }
  return mb;
}

}  // namespace powersweep
