#include "workloads/models/lenet5.h"

namespace powersweep {

LeNet5::LeNet5() {
  namespace nn = torch::nn;
  conv1_ = register_module("conv1",
                           nn::Conv2d(nn::Conv2dOptions(1, 6, 5).padding(2)));
  conv2_ = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(6, 16, 5)));
  fc1_ = register_module("fc1", nn::Linear(16 * 5 * 5, 120));
  fc2_ = register_module("fc2", nn::Linear(120, 84));
  fc3_ = register_module("fc3", nn::Linear(84, 10));
}

torch::Tensor LeNet5::forward(torch::Tensor x) {
  x = torch::max_pool2d(torch::relu(conv1_->forward(x)), 2);
  x = torch::max_pool2d(torch::relu(conv2_->forward(x)), 2);
  x = x.flatten(1);
  x = torch::relu(fc1_->forward(x));
  x = torch::relu(fc2_->forward(x));
  return fc3_->forward(x);
}

}  // namespace powersweep
