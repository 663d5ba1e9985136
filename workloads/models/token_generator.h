// TokenGenerator: what a generative sequence model (gpt2_small) offers the
// inference step beyond Model::Loss: greedy generation with a KV cache,
// with a callback after every token so the caller can time the first token
// (the prompt's forward) apart from the following ones.
//
// A Model that is also a TokenGenerator is run for inference by the
// generation step (workloads/runner/step.h). Not thread-safe (a torch
// module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_TOKEN_GENERATOR_H_
#define POWERSWEEP_WORKLOADS_MODELS_TOKEN_GENERATOR_H_

#include <torch/torch.h>

#include <cstdint>
#include <functional>

namespace powersweep {

class TokenGenerator {
 public:
  virtual ~TokenGenerator() = default;
  // Tokens each sample of a training minibatch predicts (for tokens/s).
  virtual int64_t TokensPerSample() const = 0;
  // Tokens an inference minibatch generates per sample after the prompt.
  virtual int64_t GeneratedTokensPerSample() const = 0;
  // Reads the prompt of every sample of `input` (the model's sample
  // layout), then greedily generates GeneratedTokensPerSample() tokens per
  // sample, each from one forward pass of the previous token with the KV
  // cache. `on_token(i)` is called once token i (0-based; 0 comes from the
  // prompt's forward pass) of every sample has been read back to the host,
  // so the computation that made it has finished. Returns the prompt's
  // mean next-token cross-entropy against the sample's targets (a 0-d
  // tensor) and writes the generated tokens, (N, count) int64, on the host,
  // to `generated` when it is not null. Call under torch::NoGradGuard.
  virtual torch::Tensor GenerateTimed(
      const torch::Tensor& input, const std::function<void(int64_t)>& on_token,
      torch::Tensor* generated) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_TOKEN_GENERATOR_H_
