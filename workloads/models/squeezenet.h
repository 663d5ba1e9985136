// SqueezeNet 1.1 as torchvision 0.14's squeezenet1_1 builds it (1.24 M
// parameters at 1,000 classes), for 3xSxS images, S >= 17 (a 3x3/2 stem
// and three 3x3/2 max pools with ceil_mode leave 1x1 there):
//   features   conv 3->64 3x3/2, ReLU, max pool 3/2 (ceil),
//              Fire(64: 16, 64+64), Fire(128: 16, 64+64), max pool,
//              Fire(128: 32, 128+128), Fire(256: 32, 128+128), max pool,
//              Fire(256: 48, 192+192), Fire(384: 48, 192+192),
//              Fire(384: 64, 256+256), Fire(512: 64, 256+256)
//   classifier Dropout 0.5, final conv 512->classes 1x1, ReLU, adaptive
//              average pool to 1x1 (flattened to the logits)
// A Fire module squeezes with a 1x1 conv (ReLU) and concatenates a 1x1 and
// a 3x3 (pad 1) expansion, each with ReLU. Parameter names are
// torchvision's ("features.3.squeeze.weight", "features.3.expand3x3.bias",
// "classifier.1.weight"). Init as torchvision: the final conv normal(0,
// 0.01), the others Kaiming uniform (fan_in, gain sqrt 2), zero biases.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_SQUEEZENET_H_
#define POWERSWEEP_WORKLOADS_MODELS_SQUEEZENET_H_

#include "workloads/models/model.h"

namespace powersweep {

class SqueezeNet11 : public Model {
 public:
  explicit SqueezeNet11(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  torch::nn::Sequential features_{nullptr};
  torch::nn::Sequential classifier_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_SQUEEZENET_H_
