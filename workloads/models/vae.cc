#include "workloads/models/vae.h"

#include "workloads/data/normalization.h"

namespace powersweep {

Vae::Vae(const ResolvedModel& shape) : Model(shape) {
  encoder_mean_ =
      register_module("encoder_mean", MacLinear(kInputs, kLatent));
  encoder_log_var_ =
      register_module("encoder_log_var", MacLinear(kInputs, kLatent));
  decoder_ = register_module("decoder", MacLinear(kLatent, kInputs));
}

torch::Tensor Vae::forward(torch::Tensor x) {
  x = x.flatten(1);
  // The log variance is part of encoding even when only the mean is used.
  encoder_log_var_->forward(x);
  return decoder_->forward(encoder_mean_->forward(x));
}

std::unique_ptr<torch::optim::Optimizer> Vae::MakeOptimizer() {
  return std::make_unique<torch::optim::Adam>(
      parameters(), torch::optim::AdamOptions(1e-3));
}

torch::Tensor Vae::Loss(const torch::Tensor& input,
                        const torch::Tensor& /*labels*/) {
  const torch::Tensor x = input.flatten(1);
  const torch::Tensor mean = encoder_mean_->forward(x);
  const torch::Tensor log_var = encoder_log_var_->forward(x);
  torch::Tensor z = mean;
  if (is_training()) {
    z = mean + torch::exp(0.5 * log_var) * torch::randn_like(mean);
  }
  const torch::Tensor logits = decoder_->forward(z);
  const ChannelStats& s = kFashionMnistStats;
  const torch::Tensor pixels = (x * s.std[0] + s.mean[0]).clamp(0.0, 1.0);
  const torch::Tensor reconstruction =
      torch::binary_cross_entropy_with_logits(
          logits, pixels, /*weight=*/{}, /*pos_weight=*/{},
          at::Reduction::None)
          .sum(1);
  const torch::Tensor kl =
      -0.5 * (1 + log_var - mean.pow(2) - log_var.exp()).sum(1);
  return (reconstruction + kl).mean();
}

}  // namespace powersweep
