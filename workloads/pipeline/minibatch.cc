#include "workloads/pipeline/minibatch.h"

#include <array>

namespace powersweep {

Minibatch BuildMinibatch(const ImageDataset& data, const int32_t* indices,
                         int64_t count, const Normalization& norm) {
  std::array<float, 256> lut;
  for (int v = 0; v < 256; ++v) {
    lut[v] = (static_cast<float>(v) / 255.0f - norm.mean) / norm.std;
  }
  const int64_t ppi = data.pixels_per_image();
  Minibatch mb;
  mb.samples = count;
  mb.images = torch::empty({count, 1, data.rows, data.cols}, torch::kFloat32);
  mb.labels = torch::empty({count}, torch::kInt64);
  float* out = mb.images.data_ptr<float>();
  int64_t* labels = mb.labels.data_ptr<int64_t>();
  for (int64_t b = 0; b < count; ++b) {
    const uint8_t* src = data.image(indices[b]);
    float* dst = out + b * ppi;
    for (int64_t p = 0; p < ppi; ++p) dst[p] = lut[src[p]];
    labels[b] = data.labels[indices[b]];
  }
  return mb;
}

}  // namespace powersweep
