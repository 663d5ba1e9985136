// OwnOptimizer: a model whose training recipe has its own optimizer rather
// than the step's default (SGD, lr 0.01, momentum 0.9; step.h):
//   vae         Adam, lr 1e-3 (Fathom's autoenc)
//   dqn         RMSprop, lr 2.5e-4, smoothing 0.95 (the Nature DQN's),
//               eps 1e-5 (not the paper's 0.01; dqn.h)
//   gpt2_small  AdamW, lr 6e-4, betas (0.9, 0.95), weight decay 0.1
// The training step (workloads/runner/step.h) asks a Model that is also an
// OwnOptimizer for its optimizer over its parameters. Not thread-safe (a
// torch module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_OWN_OPTIMIZER_H_
#define POWERSWEEP_WORKLOADS_MODELS_OWN_OPTIMIZER_H_

#include <torch/torch.h>

#include <memory>

namespace powersweep {

class OwnOptimizer {
 public:
  virtual ~OwnOptimizer() = default;
  // A new optimizer over the model's parameters (already on their device).
  virtual std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_OWN_OPTIMIZER_H_
