// MobileNetV3-large as torchvision 0.14's mobilenet_v3_large builds it
// (width 1.0, no reduced tail, no dilation), for 3xSxS images, S >= 32:
// `features` (a conv stem, 15 inverted-residual blocks, some with
// squeeze-and-excitation, a 1x1 conv to 960), global average pooling,
// `classifier` (960->1280, Hardswish, Dropout 0.2, 1280->classes).
// Batch norms use eps 0.001, momentum 0.01. Parameter and buffer names are
// torchvision's ("features.0.0.weight", "features.4.block.2.fc1.weight",
// "classifier.3.bias"). Init as torchvision: convs Kaiming normal
// (fan_out), linears normal(0, 0.01), zero biases.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_MOBILENET_V3_H_
#define POWERSWEEP_WORKLOADS_MODELS_MOBILENET_V3_H_

#include "workloads/models/model.h"

namespace powersweep {

class MobileNetV3Large : public Model {
 public:
  explicit MobileNetV3Large(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::Sequential classifier_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_MOBILENET_V3_H_
