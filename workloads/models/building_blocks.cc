#include "workloads/models/building_blocks.h"

namespace powersweep {

MacConv2d MakeConv(const ConvSpec& s) {
  return MacConv2d(torch::nn::Conv2dOptions(s.in, s.out, s.kernel)
                       .stride(s.stride)
                       .padding(s.padding)
                       .groups(s.groups)
                       .bias(s.bias));
}

void InitTorchvisionWeights(torch::nn::Module& module, LinearInit linear) {
  namespace init = torch::nn::init;
  torch::NoGradGuard no_grad;
  for (const std::shared_ptr<torch::nn::Module>& m :
       module.modules(/*include_self=*/false)) {
    if (auto* conv = m->as<torch::nn::Conv2d>()) {
      init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut, torch::kReLU);
      if (conv->bias.defined()) init::zeros_(conv->bias);
    } else if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
      init::ones_(bn->weight);
      init::zeros_(bn->bias);
    } else if (auto* fc = m->as<torch::nn::Linear>()) {
      if (linear == LinearInit::kNormal001) {
        init::normal_(fc->weight, 0.0, 0.01);
        init::zeros_(fc->bias);
      }
    }
  }
}

}  // namespace powersweep
