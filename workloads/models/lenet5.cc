#include "workloads/models/lenet5.h"

namespace powersweep {

LeNet5::LeNet5(const ResolvedModel& shape) : Model(shape) {
  namespace nn = torch::nn;
  conv1_ = register_module("conv1",
                           MacConv2d(nn::Conv2dOptions(1, 6, 5).padding(2)));
  conv2_ = register_module("conv2", MacConv2d(nn::Conv2dOptions(6, 16, 5)));
  fc1_ = register_module("fc1", MacLinear(16 * 5 * 5, 120));
  fc2_ = register_module("fc2", MacLinear(120, 84));
  fc3_ = register_module("fc3", MacLinear(84, shape.num_classes));
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
