// Dqn: the Nature DQN network (Mnih et al., "Human-level control through
// deep reinforcement learning", 2015) and its Q-learning loss.
//
// Network, on a stack of 4 grey 84x84 frames scaled to 0..1:
//   conv1  4 -> 32, 8x8 stride 4, ReLU   (32x20x20)
//   conv2 32 -> 64, 4x4 stride 2, ReLU   (64x9x9)
//   conv3 64 -> 64, 3x3 stride 1, ReLU   (64x7x7)
//   fc1   3136 -> 512, ReLU
//   fc2   512 -> actions                 (Q-values)
// 1,685,667 parameters and 9.34 M forward MACs at 3 actions. PyTorch's
// default initialisation.
//
// A sample is one replay-memory transition as the frames data set stores it
// (workloads/data/frames_dataset.h): 5 frames, the state's 4 (oldest first)
// and the frame after the action, so the next state is frames 1..4; its
// label is the transition code action + actions * (2 * (reward + 1) + done)
// (reward -1, 0 or +1, done 0 or 1; EncodeTransition in
// workloads/data/frames_format.h). forward(x)
// takes (N, 5, 84, 84) or (N, 4, 84, 84) and returns the Q-values of the
// first 4 frames, (N, actions).
//
// Loss(x, codes) is the Q-learning loss: Huber (smooth L1, delta 1) between
// Q(s, a) and the target r + gamma * (1 - done) * max_a' Q_target(s', a'),
// gamma 0.99, averaged over the minibatch. Q_target is a target network, a
// copy of the online network's weights taken at the first training
// minibatch and refreshed every kTargetRefresh training minibatches (the
// Nature paper's C = 10,000 steps scaled to short runs); it is not a
// submodule, so its weights are neither parameters nor in the state, and
// in eval mode (inference) the online network is its own target. Trained
// with RMSProp as in the paper (own_optimizer.h).
// Minibatches come from the data set by the loader's uniform shuffle: the
// data set is the replay memory (recorded by gen-dataset's game, not by an
// agent acting), so the run measures the DQN's training step, not an
// environment. Not thread-safe (a torch module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_DQN_H_
#define POWERSWEEP_WORKLOADS_MODELS_DQN_H_

#include <vector>

#include "workloads/data/frames_format.h"  // the transition codes
#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"
#include "workloads/models/own_optimizer.h"

namespace powersweep {

class Dqn : public Model, public OwnOptimizer {
 public:
  static constexpr int64_t kStack = 4;
  static constexpr int64_t kFrameSide = 84;
  static constexpr double kGamma = 0.99;
  static constexpr int64_t kTargetRefresh = 100;

  // `shape` must be 5x84x84 (MakeModel checks it); num_classes = actions.
  explicit Dqn(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& codes) override;
  // Frames uniform in 0..1 and codes of random actions, rewards and ends.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;
  // RMSProp, lr 2.5e-4 and smoothing 0.95 as in the Nature DQN, eps 1e-5
  // (the paper's minimum squared gradient of 0.01 makes a few hundred
  // steps barely move the loss: 0.162 -> 0.150 in 40 steps on a catch
  // minibatch, against 0.162 -> 0.0015 with 1e-5, PyTorch 1.13).
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() override;

 private:
  torch::Tensor QValues(const torch::Tensor& state, bool target);
  void RefreshTarget();

  MacConv2d conv1_{nullptr};
  MacConv2d conv2_{nullptr};
  MacConv2d conv3_{nullptr};
  MacLinear fc1_{nullptr};
  MacLinear fc2_{nullptr};
  std::vector<torch::Tensor> target_;  // detached copies, in parameters() order
  int64_t train_steps_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_DQN_H_
