// LeNet-5 as the studies' PyTorch code defines it, for 1x28x28 images:
//   conv1 1->6 k5 pad 2, ReLU, maxpool 2   (6x28x28 -> 6x14x14)
//   conv2 6->16 k5, ReLU, maxpool 2        (16x10x10 -> 16x5x5)
//   fc1 400->120, ReLU, fc2 120->84, ReLU, fc3 84->classes (logits)
// 61,706 parameters at 10 classes. PyTorch's default initialisation.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_LENET5_H_
#define POWERSWEEP_WORKLOADS_MODELS_LENET5_H_

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"

namespace powersweep {

class LeNet5 : public Model {
 public:
  // `shape` must be 1x28x28 (MakeModel checks it).
  explicit LeNet5(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;

 private:
  MacConv2d conv1_{nullptr};
  MacConv2d conv2_{nullptr};
  MacLinear fc1_{nullptr};
  MacLinear fc2_{nullptr};
  MacLinear fc3_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_LENET5_H_
