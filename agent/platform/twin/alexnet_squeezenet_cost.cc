// AlexNet and SqueezeNet 1.1 walked as torchvision builds them
// (torchvision/models/alexnet.py, squeezenet.py; workloads/models/
// alexnet.cc, squeezenet.cc).
#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

// Conv2d with bias (nn.Conv2d's default, which both networks keep) + ReLU.
void ConvRelu(ModelWalker* m, int out, int kernel, int stride, int padding) {
  m->Conv(out, kernel, stride, padding, 1, /*bias=*/true);
  m->Activation();
}

// Fire: squeeze 1x1 + ReLU, then expand 1x1 + ReLU and expand 3x3 (pad 1)
// + ReLU from the squeezed map, concatenated.
void Fire(ModelWalker* m, int squeeze, int expand1x1, int expand3x3) {
  ConvRelu(m, squeeze, 1, 1, 0);
  const TensorShape squeezed = m->shape();
  ConvRelu(m, expand1x1, 1, 1, 0);
  const TensorShape e1 = m->shape();
  m->set_shape(squeezed);
  ConvRelu(m, expand3x3, 3, 1, 1);
  m->Concat({e1, m->shape()});
}

}  // namespace

ModelCost AlexNetCost(const ModelInput& input) {
  ModelWalker m("alexnet", input);
  ConvRelu(&m, 64, 11, 4, 2);
  m.MaxPool(3, 2);
  ConvRelu(&m, 192, 5, 1, 2);
  m.MaxPool(3, 2);
  ConvRelu(&m, 384, 3, 1, 1);
  ConvRelu(&m, 256, 3, 1, 1);
  ConvRelu(&m, 256, 3, 1, 1);
  m.MaxPool(3, 2);
  m.AdaptiveAvgPool(6);
  m.Linear(4096);  // Dropout(0.5) before each of the first two linears
  m.Activation();
  m.Linear(4096);
  m.Activation();
  m.Linear(input.classes);
  return m.Finish();
}

ModelCost SqueezeNet11Cost(const ModelInput& input) {
  ModelWalker m("squeezenet1_1", input);
  ConvRelu(&m, 64, 3, 2, 0);
  m.MaxPool(3, 2, 0, /*ceil=*/true);
  Fire(&m, 16, 64, 64);
  Fire(&m, 16, 64, 64);
  m.MaxPool(3, 2, 0, /*ceil=*/true);
  Fire(&m, 32, 128, 128);
  Fire(&m, 32, 128, 128);
  m.MaxPool(3, 2, 0, /*ceil=*/true);
  Fire(&m, 48, 192, 192);
  Fire(&m, 48, 192, 192);
  Fire(&m, 64, 256, 256);
  Fire(&m, 64, 256, 256);
  // Classifier: Dropout(0.5), final 1x1 conv to the classes, ReLU, global
  // average pool (flattened: a view).
  ConvRelu(&m, input.classes, 1, 1, 0);
  m.AdaptiveAvgPool(1);
  return m.Finish();
}

}  // namespace powersweep
