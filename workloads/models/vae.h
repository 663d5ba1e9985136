// Vae: Fathom's `autoenc` variational autoencoder (Kingma & Welling,
// "Auto-Encoding Variational Bayes") for 1x28x28 images (MNIST /
// Fashion-MNIST, 784 inputs), at Fathom's sizes: a Gaussian latent of 200
// dimensions, each side one linear layer (Fathom's variational.py):
//   encoder_mean     784 -> 200   (mean of q(z|x))
//   encoder_log_var  784 -> 200   (log variance of q(z|x))
//   decoder          200 -> 784   (Bernoulli logits of p(x|z))
// 471,584 parameters, 470,400 forward MACs. Initialisation is PyTorch's
// default for Linear (Fathom uses Xavier and a zero decoder; a zero decoder
// would make every run start from the same loss plateau).
//
// forward(x) is inference, encode + decode: the reconstruction logits
// (N, 784) of z = the posterior mean. Loss(x, labels) is the negative ELBO
// per sample, averaged over the minibatch: the reconstruction's binary
// cross-entropy (summed over the 784 pixels, against the pixels in 0..1)
// plus KL(q(z|x) || N(0, I)); in training mode z is sampled with the
// reparameterisation trick (z = mean + exp(log_var / 2) * eps), in eval
// mode z is the mean. Fathom's loss is the squared error instead of the
// cross-entropy; the brief of this model asked for the Bernoulli ELBO.
// Trained with Adam (lr 1e-3, Fathom's optimizer; own_optimizer.h).
// The labels are ignored. The inputs arrive normalised with the IDX
// statistics (normalization.h); the target pixels are recovered from them
// (clamped to 0..1, so the synthetic data set's normal samples work too).
// Not thread-safe (a torch module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_VAE_H_
#define POWERSWEEP_WORKLOADS_MODELS_VAE_H_

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"
#include "workloads/models/own_optimizer.h"

namespace powersweep {

class Vae : public Model, public OwnOptimizer {
 public:
  static constexpr int64_t kInputs = 784;
  static constexpr int64_t kLatent = 200;

  // `shape` must be 1x28x28 (MakeModel checks it).
  explicit Vae(const ResolvedModel& shape);
  // Reconstruction logits (N, 784) of z = the posterior mean.
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Adam, lr 1e-3, as Fathom trains it.
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() override;

 private:
  MacLinear encoder_mean_{nullptr};
  MacLinear encoder_log_var_{nullptr};
  MacLinear decoder_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_VAE_H_
