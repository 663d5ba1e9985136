#include "workloads/models/vgg.h"

#include <vector>

#include "workloads/models/building_blocks.h"
#include "workloads/models/counted_layers.h"

namespace powersweep {
namespace {

constexpr int64_t kPool = 0;

// torchvision's cfgs["A"] and cfgs["E"]: conv output channels, kPool = max
// pool 2x2.
std::vector<int64_t> Layers(Vgg::Config config) {
  if (config == Vgg::Config::kA) {
    return {64, kPool, 128, kPool, 256, 256, kPool,
            512, 512, kPool, 512, 512, kPool};
  }
  return {64,  64,  kPool, 128, 128, kPool, 256, 256, 256, 256, kPool,
          512, 512, 512,   512, kPool, 512, 512, 512, 512, kPool};
}

}  // namespace

Vgg::Vgg(const ResolvedModel& shape, Config config) : Model(shape) {
  namespace nn = torch::nn;
  nn::Sequential features;
  int64_t in = shape.input_shape[0];
  for (int64_t v : Layers(config)) {
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

torch::Tensor Vgg::forward(torch::Tensor x) {
  x = avgpool_(features_->forward(x)).flatten(1);
  return classifier_->forward(x);
}

}  // namespace powersweep
