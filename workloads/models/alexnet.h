// AlexNet as torchvision 0.14's alexnet builds it (the one-GPU variant of
// "One weird trick", 61.1 M parameters at 1,000 classes), for 3xSxS images,
// S >= 63 (the 11x11/4 stem and three 3x3/2 max pools leave 1x1 there):
//   features   conv 3->64 11x11/4 pad 2, ReLU, max pool 3/2,
//              conv 64->192 5x5 pad 2, ReLU, max pool 3/2,
//              conv 192->384 3x3, ReLU, conv 384->256 3x3, ReLU,
//              conv 256->256 3x3 (pad 1), ReLU, max pool 3/2
//   avgpool    adaptive to 6x6
//   classifier Dropout 0.5, 9216->4096, ReLU, Dropout 0.5, 4096->4096, ReLU,
//              4096->classes
// Parameter names are torchvision's ("features.0.weight",
// "classifier.6.bias"); the layers keep PyTorch's default init, as
// torchvision does. Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_ALEXNET_H_
#define POWERSWEEP_WORKLOADS_MODELS_ALEXNET_H_

#include "workloads/models/model.h"

namespace powersweep {

class AlexNet : public Model {
 public:
  explicit AlexNet(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::AdaptiveAvgPool2d avgpool_{nullptr};
  torch::nn::Sequential classifier_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_ALEXNET_H_
