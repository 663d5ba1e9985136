// Building helpers shared by the torchvision-style networks: a counted
// conv layer with torchvision's argument order, a Sequential that can sit
// inside another one, and torchvision's weight initialisation.
// InitTorchvisionWeights draws from torch's global generator; call it from
// one thread, after torch::manual_seed.
#ifndef POWERSWEEP_WORKLOADS_MODELS_BUILDING_BLOCKS_H_
#define POWERSWEEP_WORKLOADS_MODELS_BUILDING_BLOCKS_H_

#include <torch/torch.h>

#include <cstdint>
#include <utility>

#include "workloads/models/counted_layers.h"

namespace powersweep {

struct ConvSpec {
  int64_t in = 0;
  int64_t out = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t groups = 1;
  bool bias = false;
};
MacConv2d MakeConv(const ConvSpec& spec);

// A torch::nn::Sequential with a plain Tensor -> Tensor forward, so it can
// be an element of another Sequential (torchvision nests nn.Sequential).
// Its children are named "0", "1", ... like any Sequential's.
class ChainImpl : public torch::nn::SequentialImpl {
 public:
  using torch::nn::SequentialImpl::SequentialImpl;
  torch::Tensor forward(torch::Tensor x) {
    return torch::nn::SequentialImpl::forward(std::move(x));
  }
};
TORCH_MODULE(Chain);

// How Linear layers start: PyTorch's default (uniform in +-1/sqrt(fan_in),
// as ResNet keeps it) or normal(0, 0.01) with zero bias (VGG, MobileNetV3).
enum class LinearInit { kTorchDefault, kNormal001 };

// Every Conv2d under `module`: Kaiming normal, fan_out, ReLU gain, zero
// bias. Every BatchNorm2d: weight 1, bias 0. Every Linear: per `linear`.
// Visits the submodules only, so a constructor may call it on *this.
void InitTorchvisionWeights(torch::nn::Module& module, LinearInit linear);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_BUILDING_BLOCKS_H_
