// VGG-11 (configuration "A") and VGG-19 (configuration "E"), both without
// batch norm, as torchvision 0.14's vgg11 and vgg19 build them, for 3xSxS
// images, S >= 32: `features` (3x3 convs with ReLU, five 2x2 max pools),
// `avgpool` (adaptive to 7x7, so the classifier's size does not depend on
// S), `classifier` (25088->4096, ReLU, Dropout 0.5, 4096->4096, ReLU,
// Dropout 0.5, 4096->classes). Parameter names are torchvision's
// ("features.0.weight", "classifier.6.bias"). Init as torchvision: convs
// Kaiming normal (fan_out), linears normal(0, 0.01), zero biases. Not
// thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_VGG_H_
#define POWERSWEEP_WORKLOADS_MODELS_VGG_H_

#include "workloads/models/model.h"

namespace powersweep {

class Vgg : public Model {
 public:
  // torchvision's cfgs: "A" (8 convs, vgg11), "E" (16 convs, vgg19).
  enum class Config { kA, kE };
  Vgg(const ResolvedModel& shape, Config config);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool_{nullptr};
  torch::nn::Sequential classifier_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_VGG_H_
