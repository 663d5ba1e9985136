#include "workloads/models/alexnet.h"

#include "workloads/models/building_blocks.h"
#include "workloads/models/counted_layers.h"

namespace powersweep {

AlexNet::AlexNet(const ResolvedModel& shape) : Model(shape) {
  namespace nn = torch::nn;
  auto pool = [] { return nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2)); };
  // Biased convs, as torchvision's nn.Conv2d defaults.
  features_ = register_module(
      "features",
      nn::Sequential(
          MakeConv({shape.input_shape[0], 64, 11, 4, 2, 1, /*bias=*/true}),
          nn::ReLU(true), pool(),
          MakeConv({64, 192, 5, 1, 2, 1, /*bias=*/true}), nn::ReLU(true),
          pool(), MakeConv({192, 384, 3, 1, 1, 1, /*bias=*/true}),
          nn::ReLU(true), MakeConv({384, 256, 3, 1, 1, 1, /*bias=*/true}),
          nn::ReLU(true), MakeConv({256, 256, 3, 1, 1, 1, /*bias=*/true}),
          nn::ReLU(true), pool()));
  avgpool_ = register_module("avgpool", nn::AdaptiveAvgPool2d(6));
  classifier_ = register_module(
      "classifier",
      nn::Sequential(nn::Dropout(0.5), MacLinear(256 * 6 * 6, 4096),
                     nn::ReLU(true), nn::Dropout(0.5), MacLinear(4096, 4096),
                     nn::ReLU(true), MacLinear(4096, shape.num_classes)));
}

torch::Tensor AlexNet::forward(torch::Tensor x) {
  x = avgpool_(features_->forward(x)).flatten(1);
  return classifier_->forward(x);
}

}  // namespace powersweep
