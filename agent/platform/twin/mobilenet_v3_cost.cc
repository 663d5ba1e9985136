// MobileNetV3-Large walked as torchvision builds it
// (torchvision/models/mobilenetv3.py, width multiplier 1.0, dilation 1).
#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

// torchvision's _make_divisible(v, 8): round to a multiple of 8, at least 8,
// never more than 10% below v.
int MakeDivisible(double v, int divisor = 8) {
  int rounded = static_cast<int>(v + divisor / 2.0) / divisor * divisor;
  if (rounded < divisor) rounded = divisor;
  if (rounded < 0.9 * v) rounded += divisor;
  return rounded;
}

struct BlockConfig {
  int kernel;
  int expanded;
  int out;
  bool squeeze_excite;
  int stride;  // activation: ReLU or Hardswish, the same cost here
};

// The 15 inverted residual blocks of MobileNetV3-Large (input 16 channels).
constexpr BlockConfig kBlocks[] = {
    {3, 16, 16, false, 1},   {3, 64, 24, false, 2},   {3, 72, 24, false, 1},
    {5, 72, 40, true, 2},    {5, 120, 40, true, 1},   {5, 120, 40, true, 1},
    {3, 240, 80, false, 2},  {3, 200, 80, false, 1},  {3, 184, 80, false, 1},
    {3, 184, 80, false, 1},  {3, 480, 112, true, 1},  {3, 672, 112, true, 1},
    {5, 672, 160, true, 2},  {5, 960, 160, true, 1},  {5, 960, 160, true, 1},
};

// Conv (no bias) + batch norm (+ activation).
void ConvBn(ModelWalker* m, int out, int kernel, int stride, int groups,
            bool activation) {
  m->Conv(out, kernel, stride, (kernel - 1) / 2, groups);
  m->BatchNorm();
  if (activation) m->Activation();
}

// SqueezeExcitation: global average pool, 1x1 conv (bias) to the squeeze
// width, ReLU, 1x1 conv (bias) back, Hardsigmoid, scale the input.
void SqueezeExcite(ModelWalker* m) {
  const TensorShape in = m->shape();
  m->AdaptiveAvgPool(1);
  m->Conv(MakeDivisible(in.channels / 4), 1, 1, 0, 1, /*bias=*/true);
  m->Activation();
  m->Conv(in.channels, 1, 1, 0, 1, /*bias=*/true);
  m->Activation();
  m->set_shape(in);
  m->Elementwise();  // scale
}

void InvertedResidual(ModelWalker* m, const BlockConfig& b) {
  const TensorShape in = m->shape();
  if (b.expanded != in.channels) ConvBn(m, b.expanded, 1, 1, 1, true);
  ConvBn(m, b.expanded, b.kernel, b.stride, b.expanded, true);  // depthwise
  if (b.squeeze_excite) SqueezeExcite(m);
  ConvBn(m, b.out, 1, 1, 1, false);  // project
  if (b.stride == 1 && in.channels == b.out) m->Elementwise();  // residual
}

}  // namespace

ModelCost MobileNetV3LargeCost(const ModelInput& input) {
  ModelWalker m("mobilenetv3", input);
  ConvBn(&m, 16, 3, 2, 1, true);  // stem, Hardswish
  for (const BlockConfig& b : kBlocks) InvertedResidual(&m, b);
  ConvBn(&m, 6 * 160, 1, 1, 1, true);  // last conv, 960 channels
  m.AdaptiveAvgPool(1);
  m.Linear(1280);
  m.Activation();  // Hardswish; Dropout(0.2) not counted
  m.Linear(input.classes);
  return m.Finish();
}

}  // namespace powersweep
