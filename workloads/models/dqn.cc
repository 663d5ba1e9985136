#include "workloads/models/dqn.h"

namespace powersweep {

Dqn::Dqn(const ResolvedModel& shape) : Model(shape) {
  namespace nn = torch::nn;
  conv1_ = register_module(
      "conv1", MacConv2d(nn::Conv2dOptions(kStack, 32, 8).stride(4)));
  conv2_ =
      register_module("conv2", MacConv2d(nn::Conv2dOptions(32, 64, 4).stride(2)));
  conv3_ = register_module("conv3", MacConv2d(nn::Conv2dOptions(64, 64, 3)));
  fc1_ = register_module("fc1", MacLinear(64 * 7 * 7, 512));
  fc2_ = register_module("fc2", MacLinear(512, shape.num_classes));
}

torch::Tensor Dqn::QValues(const torch::Tensor& state, bool target) {
  if (!target) {
    torch::Tensor x = torch::relu(conv1_->forward(state));
    x = torch::relu(conv2_->forward(x));
    x = torch::relu(conv3_->forward(x));
    x = torch::relu(fc1_->forward(x.flatten(1)));
    return fc2_->forward(x);
  }
  // The same layers with the target weights (conv1..3 and fc1..2, each a
  // weight and a bias, in registration order).
  const std::vector<torch::Tensor>& w = target_;
  torch::Tensor x = torch::relu(torch::conv2d(state, w[0], w[1], {4, 4}));
  x = torch::relu(torch::conv2d(x, w[2], w[3], {2, 2}));
  x = torch::relu(torch::conv2d(x, w[4], w[5], {1, 1}));
  x = torch::relu(torch::linear(x.flatten(1), w[6], w[7]));
  return torch::linear(x, w[8], w[9]);
}

torch::Tensor Dqn::forward(torch::Tensor x) {
  return QValues(x.slice(1, 0, kStack), /*target=*/false);
}

void Dqn::RefreshTarget() {
  torch::NoGradGuard no_grad;
  target_.clear();
  for (const torch::Tensor& p : parameters()) target_.push_back(p.detach().clone());
}

torch::Tensor Dqn::Loss(const torch::Tensor& input,
                        const torch::Tensor& codes) {
  const int64_t actions = num_classes();
  const bool training = is_training();
  if (training) {
    if (train_steps_ % kTargetRefresh == 0 || target_.empty() ||
        target_[0].device() != input.device()) {
      RefreshTarget();
    }
    ++train_steps_;
  }
  const torch::Tensor action = codes.remainder(actions);
  const torch::Tensor outcome = codes.div(actions, "floor");
  const torch::Tensor done = outcome.remainder(2).to(torch::kFloat32);
  const torch::Tensor reward =
      outcome.div(2, "floor").to(torch::kFloat32) - 1.0;

  const torch::Tensor q =
      forward(input).gather(1, action.unsqueeze(1)).squeeze(1);
  torch::Tensor next_q;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor next_state = input.slice(1, 1, kStack + 1);
    next_q = std::get<0>(
        QValues(next_state, /*target=*/training).max(1));
  }
  const torch::Tensor target = reward + kGamma * (1.0 - done) * next_q;
  return torch::smooth_l1_loss(q, target);
}

std::unique_ptr<torch::optim::Optimizer> Dqn::MakeOptimizer() {
  return std::make_unique<torch::optim::RMSprop>(
      parameters(),
      torch::optim::RMSpropOptions(2.5e-4).alpha(0.95).eps(1e-5));
}

std::pair<torch::Tensor, torch::Tensor> Dqn::SyntheticBatch(int64_t n) {
  return {torch::rand({n, kStack + 1, kFrameSide, kFrameSide}),
          torch::randint(6 * num_classes(), {n}, torch::kLong)};
}

}  // namespace powersweep
