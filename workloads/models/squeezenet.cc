#include "workloads/models/squeezenet.h"

#include "workloads/models/building_blocks.h"
#include "workloads/models/counted_layers.h"

namespace powersweep {
namespace {

namespace nn = torch::nn;

// torchvision's Fire: squeeze 1x1 + ReLU, then [expand 1x1 + ReLU,
// expand 3x3 (pad 1) + ReLU] concatenated on the channels.
class FireImpl : public nn::Module {
 public:
  FireImpl(int64_t in, int64_t squeeze, int64_t expand1x1, int64_t expand3x3)
      : squeeze_(register_module(
            "squeeze", MakeConv({in, squeeze, 1, 1, 0, 1, /*bias=*/true}))),
        expand1x1_(register_module(
            "expand1x1",
            MakeConv({squeeze, expand1x1, 1, 1, 0, 1, /*bias=*/true}))),
        expand3x3_(register_module(
            "expand3x3",
            MakeConv({squeeze, expand3x3, 3, 1, 1, 1, /*bias=*/true}))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    const torch::Tensor s = torch::relu(squeeze_(x));
    return torch::cat({torch::relu(expand1x1_(s)), torch::relu(expand3x3_(s))},
                      1);
  }

 private:
  MacConv2d squeeze_, expand1x1_, expand3x3_;
};
TORCH_MODULE(Fire);

nn::MaxPool2d CeilPool() {
  return nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).ceil_mode(true));
}

}  // namespace

SqueezeNet11::SqueezeNet11(const ResolvedModel& shape) : Model(shape) {
  features_ = register_module(
      "features",
      nn::Sequential(
          MakeConv({shape.input_shape[0], 64, 3, 2, 0, 1, /*bias=*/true}),
          nn::ReLU(true), CeilPool(), Fire(64, 16, 64, 64),
          Fire(128, 16, 64, 64), CeilPool(), Fire(128, 32, 128, 128),
          Fire(256, 32, 128, 128), CeilPool(), Fire(256, 48, 192, 192),
          Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
          Fire(512, 64, 256, 256)));
  MacConv2d final_conv =
      MakeConv({512, shape.num_classes, 1, 1, 0, 1, /*bias=*/true});
  classifier_ = register_module(
      "classifier",
      nn::Sequential(nn::Dropout(0.5), final_conv, nn::ReLU(true),
                     nn::AdaptiveAvgPool2d(1)));
  namespace init = torch::nn::init;
  torch::NoGradGuard no_grad;
  for (const std::shared_ptr<nn::Module>& m : modules(false)) {
    auto* conv = m->as<nn::Conv2d>();
    if (conv == nullptr) continue;
    if (conv == final_conv.get()) {
      init::normal_(conv->weight, 0.0, 0.01);
    } else {
      init::kaiming_uniform_(conv->weight, 0.0, torch::kFanIn,
                             torch::kLeakyReLU);
    }
    init::zeros_(conv->bias);
  }
}

torch::Tensor SqueezeNet11::forward(torch::Tensor x) {
  return classifier_->forward(features_->forward(x)).flatten(1);
}

}  // namespace powersweep
