#include "workloads/models/vgg.h"

#include "workloads/models/counted_layers.h"
#include "workloads/models/building_blocks.h"

namespace powersweep {

Vgg11::Vgg11(const ResolvedModel& shape) : Model(shape) {
  namespace nn = torch::nn;
  constexpr int64_t kPool = 0;
  const int64_t config_a[] = {64,  kPool, 128, kPool, 256, 256, kPool,
                              512, 512,   kPool, 512, 512, kPool};
  nn::Sequential features;
  int64_t in = shape.input_shape[0];
  for (int64_t v : config_a) {
    if (v == kPool) {
      features->push_back(nn::MaxPool2d(nn::MaxPool2dOptions(2).stride(2)));
    } else {
      features->push_back(MakeConv({in, v, 3, 1, 1, 1, /*bias=*/true}));
      features->push_back(nn::ReLU(nn::ReLUOptions(/*inplace=*/true)));
      in = v;
    }
  }
  features_ = register_module("features", features);
  avgpool_ = register_module("avgpool", nn::AdaptiveAvgPool2d(7));
  classifier_ = register_module(
      "classifier",
      nn::Sequential(MacLinear(512 * 7 * 7, 4096), nn::ReLU(true),
                     nn::Dropout(0.5), MacLinear(4096, 4096), nn::ReLU(true),
                     nn::Dropout(0.5), MacLinear(4096, shape.num_classes)));
  InitTorchvisionWeights(*this, LinearInit::kNormal001);
}

torch::Tensor Vgg11::forward(torch::Tensor x) {
  x = avgpool_(features_->forward(x)).flatten(1);
  return classifier_->forward(x);
}

}  // namespace powersweep
