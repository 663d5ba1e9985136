// Step: what the compute thread does with one minibatch.
//
// MakeStep(task, model) returns a TrainStep (model.train(); SGD lr 0.01,
// momentum 0.9, or the model's own optimizer when it is an OwnOptimizer:
// vae, dqn, gpt2_small, workloads/models/own_optimizer.h; zero_grad, Model::Loss (forward + the model's loss,
// cross-entropy for classifiers), backward, step), an InferStep
// (model.eval(); Model::Loss under torch::NoGradGuard) or, for inference of
// a model that is a TokenGenerator (gpt2_small), a GenerateStep
// (model.eval(); under no-grad, the prompt's forward pass and greedy
// generation with the KV cache, TokenGenerator::GenerateTimed).
//
// Run() returns the minibatch's mean loss, read back as a double so the
// computation has finished when it returns (on a GPU this read-back
// synchronizes the device, so the compute time covers the kernels), and
// for sequence models the tokens it processed: training and lstm_lm /
// mobilebert / seq2seq / seq2seq_lstm (greedy decoding) inference, samples x seq_len
// (memnet: samples x 51 x seq_len, the memory and question words it
// reads; deepspeech2: spectrogram frames, samples x the frame window);
// generation (gpt2_small
// inference), samples x the tokens generated, with
// the time to first token (compute start to the first token of every
// sample on the host) and the mean latency of each following token, read
// on `clock` (nullptr = a RealClock). The model must already be on
// `device`; each minibatch is copied there first (a no-op on the CPU).
// Run() may throw c10::Error: callers use CatchTorchErrors.
// Not thread-safe: owned and used by the compute thread.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_STEP_H_
#define POWERSWEEP_WORKLOADS_RUNNER_STEP_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "common/clock.h"
#include "powersweep/v1/workload.pb.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/minibatch.h"

namespace powersweep {

struct StepResult {
  double loss = 0;
  int64_t tokens = 0;                 // 0 for models that take images
  std::optional<double> ttft_s;       // generation only
  std::optional<double> per_token_s;  // generation of 2 tokens or more
};

class Step {
 public:
  virtual ~Step() = default;
  virtual StepResult Run(const Minibatch& mb) = 0;
};

std::unique_ptr<Step> MakeStep(::powersweep::v1::Task task,
                               std::shared_ptr<Model> model,
                               torch::Device device = torch::kCPU,
                               Clock* clock = nullptr);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_STEP_H_
