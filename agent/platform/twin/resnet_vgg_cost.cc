// ResNet-18/50 and VGG-11/19 walked as torchvision builds them
// (torchvision/models/resnet.py, vgg.py).
#include <cstddef>

#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

// conv (no bias) + batch norm, optionally followed by ReLU.
void ConvBn(ModelWalker* m, int out, int kernel, int stride, int padding,
            bool relu) {
  m->Conv(out, kernel, stride, padding);
  m->BatchNorm();
  if (relu) m->Activation();
}

// BasicBlock: 3x3 (stride) bn relu, 3x3 bn, [downsample 1x1 (stride) bn],
// add, relu.
void BasicBlock(ModelWalker* m, int planes, int stride) {
  const TensorShape in = m->shape();
  ConvBn(m, planes, 3, stride, 1, true);
  ConvBn(m, planes, 3, 1, 1, false);
  const TensorShape out = m->shape();
  if (stride != 1 || in.channels != planes) {
    m->set_shape(in);
    ConvBn(m, planes, 1, stride, 0, false);
  }
  m->set_shape(out);
  m->Elementwise();  // residual add
  m->Activation();
}

// Bottleneck (v1.5): 1x1 bn relu, 3x3 (stride) bn relu, 1x1 (x4) bn,
// [downsample 1x1 (stride) bn], add, relu.
void Bottleneck(ModelWalker* m, int planes, int stride) {
  const TensorShape in = m->shape();
  const int out_channels = planes * 4;
  ConvBn(m, planes, 1, 1, 0, true);
  ConvBn(m, planes, 3, stride, 1, true);
  ConvBn(m, out_channels, 1, 1, 0, false);
  const TensorShape out = m->shape();
  if (stride != 1 || in.channels != out_channels) {
    m->set_shape(in);
    ConvBn(m, out_channels, 1, stride, 0, false);
  }
  m->set_shape(out);
  m->Elementwise();
  m->Activation();
}

ModelCost ResNet(const char* name, const ModelInput& input, bool bottleneck,
                 const int (&blocks)[4]) {
  ModelWalker m(name, input);
  ConvBn(&m, 64, 7, 2, 3, true);  // stem
  m.MaxPool(3, 2, 1);
  const int planes[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int b = 0; b < blocks[stage]; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      if (bottleneck) {
        Bottleneck(&m, planes[stage], stride);
      } else {
        BasicBlock(&m, planes[stage], stride);
      }
    }
  }
  m.AdaptiveAvgPool(1);
  m.Linear(input.classes);
  return m.Finish();
}

}  // namespace

ModelCost ResNet18Cost(const ModelInput& input) {
  return ResNet("resnet18", input, false, {2, 2, 2, 2});
}

ModelCost ResNet50Cost(const ModelInput& input) {
  return ResNet("resnet50", input, true, {3, 4, 6, 3});
}

namespace {

// VGG without batch norm: 3x3 convs (pad 1, bias, ReLU) with the channels
// of `config`, 0 = max pool 2x2; 7x7 adaptive pool; classifier
// 25088-4096-4096-classes (dropouts not counted).
template <size_t N>
ModelCost Vgg(const char* name, const ModelInput& input,
              const int (&config)[N]) {
  ModelWalker m(name, input);
  for (int c : config) {
    if (c == 0) {
      m.MaxPool(2, 2);
    } else {
      m.Conv(c, 3, 1, 1, 1, /*bias=*/true);
      m.Activation();
    }
  }
  m.AdaptiveAvgPool(7);
  m.Linear(4096);
  m.Activation();
  m.Linear(4096);
  m.Activation();
  m.Linear(input.classes);
  return m.Finish();
}

}  // namespace

ModelCost Vgg11Cost(const ModelInput& input) {
  const int config_a[] = {64,  0,   128, 0, 256, 256, 0,
                          512, 512, 0,   512, 512, 0};
  return Vgg("vgg11", input, config_a);
}

ModelCost Vgg19Cost(const ModelInput& input) {
  const int config_e[] = {64,  64,  0,   128, 128, 0,   256, 256, 256, 256, 0,
                          512, 512, 512, 512, 0,   512, 512, 512, 512, 0};
  return Vgg("vgg19", input, config_e);
}

ModelCost LeNet5Cost(const ModelInput& input) {
  ModelWalker m("lenet5", input);
  m.Conv(6, 5, 1, 2, 1, /*bias=*/true);
  m.Activation();
  m.MaxPool(2, 2);
  m.Conv(16, 5, 1, 0, 1, /*bias=*/true);
  m.Activation();
  m.MaxPool(2, 2);
  m.Linear(120);
  m.Activation();
  m.Linear(84);
  m.Activation();
  m.Linear(input.classes);
  return m.Finish();
}

}  // namespace powersweep
