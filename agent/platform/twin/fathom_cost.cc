// The cost models of vae, dqn and gpt2_small (model_architectures.h), walked
// layer by layer as workloads/models/{vae,dqn,gpt2}.cc build them.
#include "agent/platform/twin/model_architectures.h"
#include "agent/platform/twin/model_walker.h"

namespace powersweep {
namespace {

constexpr int kGpt2Layers = 12;
constexpr int kGpt2Model = 768;
constexpr int kGpt2Heads = 12;
constexpr int kGpt2Mlp = 3072;
constexpr int kGpt2Context = 1024;
constexpr int kGpt2GeneratedTokens = 16;  // the workload's default

// A Conv1D / Linear applied to each of `tokens` positions.
void TokenLinear(ModelWalker& m, double tokens, double in, double out,
                 bool bias) {
  m.Custom(tokens * in * out, in * out + (bias ? out : 0), bias ? 2 : 1,
           tokens * out, 1);
}

void LayerNorm(ModelWalker& m, double tokens) {
  m.Custom(0, 2.0 * kGpt2Model, 2, tokens * kGpt2Model, 1);
}

// One transformer block for `tokens` new positions attending to `keys`
// positions (tokens itself without a cache). Attention: QK^T and AV are
// tokens x keys x 768 MACs each; scores and probabilities are written per
// head; kernels: split/permute, scores, mask, softmax, AV, merge.
void Block(ModelWalker& m, double tokens, double keys) {
  const double d = kGpt2Model;
  LayerNorm(m, tokens);
  TokenLinear(m, tokens, d, 3 * d, true);
  m.Custom(2 * tokens * keys * d, 0, 0,
           2 * kGpt2Heads * tokens * keys + 2 * tokens * d, 6);
  TokenLinear(m, tokens, d, d, true);
  m.Custom(0, 0, 0, tokens * d, 1);  // residual add
  LayerNorm(m, tokens);
  TokenLinear(m, tokens, d, kGpt2Mlp, true);
  m.Custom(0, 0, 0, tokens * kGpt2Mlp, 1);  // GELU
  TokenLinear(m, tokens, kGpt2Mlp, d, true);
  m.Custom(0, 0, 0, tokens * d, 1);  // residual add
}

// Embeddings, the blocks and the tied output layer for `tokens` new
// positions after `past` cached ones.
void Gpt2Pass(ModelWalker& m, double tokens, double past, bool embeddings) {
  const double d = kGpt2Model;
  // Token and position embeddings (parameters once) and their sum.
  m.Custom(0, embeddings ? (50257.0 + kGpt2Context) * d : 0,
           embeddings ? 2 : 0, 3 * tokens * d, 3);
  for (int i = 0; i < kGpt2Layers; ++i) Block(m, tokens, past + tokens);
  LayerNorm(m, tokens);
  m.Custom(tokens * d * 50257.0, 0, 0, tokens * 50257.0, 1);
}

// The optimizer's kernels per parameter tensor beyond SGD with momentum's
// two (model_walker.cc's formula), LibTorch's per-tensor implementations
// (assumed from their arithmetic): Adam / AdamW update two moments and
// divide by the root of the second (8 kernels), RMSProp one average (5).
constexpr int kAdamExtraKernels = 8 - 2;
constexpr int kRmsPropExtraKernels = 5 - 2;

}  // namespace

ModelCost VaeCost(const ModelInput& input) {
  ModelWalker m("vae", input);
  const TensorShape image = m.shape();
  m.Linear(200);  // mean
  m.set_shape(image);
  m.Linear(200);  // log variance
  m.Linear(784);  // decoder (from z)
  ModelCost c = m.Finish();
  // The loss: sampling z (exp, randn, mul, add), the cross-entropy and the
  // KL term, a handful of kernels over 784 + 200 values.
  c.train_kernels += 10 + kAdamExtraKernels * c.param_tensors;
  c.infer_kernels += 8;
  return c;
}

ModelCost DqnCost(const ModelInput& input) {
  ModelWalker m("dqn", input);
  // The network reads the first 4 of the 5 frames (a view, no copy).
  m.set_shape({4, input.size, input.size});
  m.Conv(32, 8, 4, 0, 1, /*bias=*/true);
  m.Activation();
  m.Conv(64, 4, 2, 0, 1, /*bias=*/true);
  m.Activation();
  m.Conv(64, 3, 1, 0, 1, /*bias=*/true);
  m.Activation();
  m.Linear(512);
  m.Activation();
  m.Linear(input.classes);
  ModelCost c = m.Finish();
  // The next states' Q-values: one more forward pass, without backward
  // (the target network's weights in training, refreshed by a copy every
  // 100 minibatches; the online network's in inference), then max,
  // gather and the Huber loss.
  c.train_extra_macs = c.forward_macs;
  c.infer_extra_macs = c.forward_macs;
  c.train_kernels +=
      c.forward_kernels + 6 + kRmsPropExtraKernels * c.param_tensors;
  c.infer_kernels += c.forward_kernels + 6;
  return c;
}

ModelCost Gpt2SmallCost(const ModelInput& input) {
  ModelWalker m("gpt2_small", input);
  const double t = input.size;  // seq_len
  Gpt2Pass(m, t, 0, /*embeddings=*/true);
  ModelCost c = m.Finish();
  c.train_kernels += kAdamExtraKernels * c.param_tensors;  // AdamW
  // Generation: one position per token, attending to the prompt and the
  // tokens so far through the KV cache (appending to it: 2 cat kernels per
  // layer); each step reads every weight once more.
  ModelWalker step("gpt2_small decode", input);
  for (int i = 1; i < kGpt2GeneratedTokens; ++i) {
    Gpt2Pass(step, 1, t + i - 1, /*embeddings=*/false);
  }
  const ModelCost g = step.Finish();
  c.infer_extra_macs = g.forward_macs;
  c.infer_kernels += g.forward_kernels +
                     (kGpt2GeneratedTokens - 1) * (2 * kGpt2Layers + 2);
  c.infer_weight_reads = kGpt2GeneratedTokens;
  c.generated_tokens = kGpt2GeneratedTokens;
  return c;
}

}  // namespace powersweep
