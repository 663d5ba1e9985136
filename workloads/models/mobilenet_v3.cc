#include "workloads/models/mobilenet_v3.h"

#include <algorithm>
#include <iterator>

#include "workloads/models/counted_layers.h"
#include "workloads/models/building_blocks.h"

namespace powersweep {
namespace {

namespace nn = torch::nn;

enum class Act { kNone, kReLU, kHardswish };

// torchvision's _make_divisible(v, 8): round to a multiple of 8, but not
// below 8 nor more than 10% below v.
int64_t MakeDivisible8(int64_t v) {
  int64_t r = std::max<int64_t>(8, (v + 4) / 8 * 8);
  if (r * 10 < v * 9) r += 8;
  return r;
}

// torchvision's Conv2dNormActivation: conv (no bias, "same" padding),
// BatchNorm2d, optional activation, as a Sequential "0", "1", "2".
Chain ConvBnAct(int64_t in, int64_t out, int64_t kernel,
                         int64_t stride, int64_t groups, Act act) {
  Chain s(
      MakeConv({in, out, kernel, stride, (kernel - 1) / 2, groups}),
      nn::BatchNorm2d(nn::BatchNorm2dOptions(out).eps(0.001).momentum(0.01)));
  if (act == Act::kReLU) s->push_back(nn::ReLU(true));
  if (act == Act::kHardswish) {
    s->push_back(nn::Functional(
        [](const torch::Tensor& x) { return torch::hardswish(x); }));
  }
  return s;
}

// torchvision's SqueezeExcitation with ReLU and Hardsigmoid.
class SqueezeExcitationImpl : public nn::Module {
 public:
  SqueezeExcitationImpl(int64_t channels, int64_t squeeze)
      : fc1_(register_module("fc1", MakeConv({channels, squeeze, 1, 1, 0, 1,
                                              /*bias=*/true}))),
        fc2_(register_module("fc2", MakeConv({squeeze, channels, 1, 1, 0, 1,
                                              /*bias=*/true}))) {}

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor scale = torch::adaptive_avg_pool2d(x, {1, 1});
    scale = torch::hardsigmoid(fc2_(torch::relu(fc1_(scale))));
    return scale * x;
  }

 private:
  MacConv2d fc1_, fc2_;
};
TORCH_MODULE(SqueezeExcitation);

struct BlockConfig {
  int64_t in, kernel, expanded, out;
  bool se, hardswish;
  int64_t stride;
};

// torchvision's InvertedResidual: `block` = [expand 1x1] depthwise
// [squeeze-excite] project 1x1; residual when the shape is kept.
class InvertedResidualImpl : public nn::Module {
 public:
  explicit InvertedResidualImpl(const BlockConfig& c)
      : residual_(c.stride == 1 && c.in == c.out) {
    const Act act = c.hardswish ? Act::kHardswish : Act::kReLU;
    Chain block;
    if (c.expanded != c.in) {
      block->push_back(ConvBnAct(c.in, c.expanded, 1, 1, 1, act));
    }
    block->push_back(
        ConvBnAct(c.expanded, c.expanded, c.kernel, c.stride, c.expanded, act));
    if (c.se) {
      block->push_back(
          SqueezeExcitation(c.expanded, MakeDivisible8(c.expanded / 4)));
    }
    block->push_back(ConvBnAct(c.expanded, c.out, 1, 1, 1, Act::kNone));
    block_ = register_module("block", block);
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = block_->forward(x);
    return residual_ ? y + x : y;
  }

 private:
  bool residual_;
  Chain block_{nullptr};
};
TORCH_MODULE(InvertedResidual);

// torchvision's _mobilenet_v3_conf("mobilenet_v3_large").
constexpr BlockConfig kLarge[] = {
    {16, 3, 16, 16, false, false, 1},   {16, 3, 64, 24, false, false, 2},
    {24, 3, 72, 24, false, false, 1},   {24, 5, 72, 40, true, false, 2},
    {40, 5, 120, 40, true, false, 1},   {40, 5, 120, 40, true, false, 1},
    {40, 3, 240, 80, false, true, 2},   {80, 3, 200, 80, false, true, 1},
    {80, 3, 184, 80, false, true, 1},   {80, 3, 184, 80, false, true, 1},
    {80, 3, 480, 112, true, true, 1},   {112, 3, 672, 112, true, true, 1},
    {112, 5, 672, 160, true, true, 2},  {160, 5, 960, 160, true, true, 1},
    {160, 5, 960, 160, true, true, 1},
};
constexpr int64_t kLastChannel = 1280;

}  // namespace

MobileNetV3Large::MobileNetV3Large(const ResolvedModel& shape)
    : Model(shape) {
  nn::Sequential features;
  features->push_back(ConvBnAct(shape.input_shape[0], kLarge[0].in, 3, 2, 1,
                                Act::kHardswish));
  for (const BlockConfig& c : kLarge) {
    features->push_back(InvertedResidual(c));
  }
  const int64_t last_in = kLarge[std::size(kLarge) - 1].out;
  features->push_back(ConvBnAct(last_in, 6 * last_in, 1, 1, 1,
                                Act::kHardswish));
  features_ = register_module("features", features);
  classifier_ = register_module(
      "classifier",
      nn::Sequential(MacLinear(6 * last_in, kLastChannel),
                     nn::Functional([](const torch::Tensor& x) {
                       return torch::hardswish(x);
                     }),
                     nn::Dropout(0.2),
                     MacLinear(kLastChannel, shape.num_classes)));
  InitTorchvisionWeights(*this, LinearInit::kNormal001);
}

torch::Tensor MobileNetV3Large::forward(torch::Tensor x) {
  x = torch::adaptive_avg_pool2d(features_->forward(x), {1, 1}).flatten(1);
  return classifier_->forward(x);
}

}  // namespace powersweep
