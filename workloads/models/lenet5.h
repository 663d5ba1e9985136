// LeNet-5 for 28x28 single-channel images and 10 classes:
//   conv 1->6 k5 pad 2, ReLU, maxpool 2   (6x28x28 -> 6x14x14)
//   conv 6->16 k5, ReLU, maxpool 2        (16x10x10 -> 16x5x5)
//   fc 400->120, ReLU, fc 120->84, ReLU, fc 84->10 (logits)
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_LENET5_H_
#define POWERSWEEP_WORKLOADS_MODELS_LENET5_H_

#include "workloads/models/model.h"

namespace powersweep {

class LeNet5 : public Model {
 public:
  LeNet5();
  torch::Tensor forward(torch::Tensor x) override;
  std::array<int64_t, 3> input_shape() const override { return {1, 28, 28}; }
  int64_t num_classes() const override { return 10; }

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::Conv2d conv2_{nullptr};
  torch::nn::Linear fc1_{nullptr};
  torch::nn::Linear fc2_{nullptr};
  torch::nn::Linear fc3_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_LENET5_H_
