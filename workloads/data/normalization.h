// Per-channel normalisation statistics of the formats' reference data sets:
// a pixel value v in 0..255 of channel c becomes (v/255 - mean[c]) / std[c].
// Constants only; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_NORMALIZATION_H_
#define POWERSWEEP_WORKLOADS_DATA_NORMALIZATION_H_

#include <array>

namespace powersweep {

struct ChannelStats {
  int channels = 1;
  std::array<float, 3> mean{};
  std::array<float, 3> std{};

  float Apply(int c, float v255) const {
    return (v255 * (1.0f / 255.0f) - mean[c]) / std[c];
  }
};

// Fashion-MNIST training set, used for every IDX data set.
inline constexpr ChannelStats kFashionMnistStats{1, {0.2860f}, {0.3530f}};
// CIFAR-10 training set (the values torchvision tutorials use).
inline constexpr ChannelStats kCifar10Stats{
    3, {0.4914f, 0.4822f, 0.4465f}, {0.2470f, 0.2435f, 0.2616f}};
// ImageNet training set (torchvision's reference recipes).
inline constexpr ChannelStats kImageNetStats{
    3, {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_NORMALIZATION_H_
