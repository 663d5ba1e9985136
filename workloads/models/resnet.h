// ResNet-18 and ResNet-50 as torchvision 0.14 builds them (resnet18,
// resnet50: ResNet v1.5, stride in the 3x3 conv of a bottleneck), for
// 3xSxS images, S >= 32, with a `num_classes`-way fc. Parameter and buffer
// names are torchvision's ("conv1.weight", "bn1.running_mean",
// "layer2.0.downsample.0.weight", "fc.bias"). Init as torchvision: convs
// Kaiming normal (fan_out), batch norms 1/0, fc PyTorch's default.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_RESNET_H_
#define POWERSWEEP_WORKLOADS_MODELS_RESNET_H_

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"

namespace powersweep {

class ResNet : public Model {
 public:
  enum class Depth { k18, k50 };
  ResNet(const ResolvedModel& shape, Depth depth);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  MacConv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Sequential layer1_{nullptr};
  torch::nn::Sequential layer2_{nullptr};
  torch::nn::Sequential layer3_{nullptr};
  torch::nn::Sequential layer4_{nullptr};
  MacLinear fc_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_RESNET_H_
