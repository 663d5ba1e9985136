// Gpt2Small: a decoder-only transformer of GPT-2 small's shape (Radford et
// al. 2019; HuggingFace's GPT2LMHeadModel with its default GPT2Config),
// randomly initialised: 12 layers, 12 heads of 64, d_model 768, MLP 3072
// with the tanh-approximated GELU, pre-LayerNorm blocks (eps 1e-5), learned
// positions for a context of 1024, vocabulary 50,257, the output layer tied
// to the token embedding. 124,439,808 parameters.
//
// Parameter names and shapes are GPT2LMHeadModel's state_dict keys
// ("transformer.wte.weight", "transformer.h.0.attn.c_attn.weight", ...,
// "transformer.ln_f.bias"); like HuggingFace's Conv1D the projections store
// their weight as (in, out). The tied "lm_head.weight" is not a separate
// parameter here (HuggingFace lists it in the state_dict as the same tensor
// as transformer.wte.weight). HuggingFace's initialisation: weights normal
// with std 0.02 (the c_proj weights 0.02 / sqrt(2 * 12)), biases 0,
// LayerNorm 1 and 0.
//
// Sample layout (catalog.h): 1x1x(seq_len + 1) token ids carried as floats
// (exact below 2^24). The first seq_len tokens are the model's input (the
// prompt, in inference) and the last seq_len its next-token targets.
// forward(x) returns the logits (N, seq_len, 50257) of the input tokens.
// Loss: the next-token cross-entropy averaged over every position of the
// minibatch, trained with AdamW (own_optimizer.h). MACs counted by
// describe: the Conv1D projections and the tied
// output layer (seq_len x 768 x 50257); the attention's QK^T and AV
// products (2 x seq_len^2 x 768 per layer) are not a Linear layer and are
// not counted (the twin's cost model adds them).
//
// Generation (TokenGenerator): greedy, with a KV cache per layer holding
// the keys and values of every position so far; a step after the prompt
// runs one position per sample. Not thread-safe (a torch module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_GPT2_H_
#define POWERSWEEP_WORKLOADS_MODELS_GPT2_H_

#include <vector>

#include "workloads/models/model.h"
#include "workloads/models/own_optimizer.h"
#include "workloads/models/token_generator.h"

namespace powersweep {

// The keys and values of every layer, (N, heads, positions, 64) each; empty
// before the first forward pass.
struct KvCache {
  std::vector<torch::Tensor> keys;
  std::vector<torch::Tensor> values;
  int64_t positions() const {
    return keys.empty() ? 0 : keys[0].size(2);
  }
};

class Gpt2TransformerImpl;  // gpt2.cc: the "transformer." submodule

class Gpt2Small : public Model,
                  public TokenGenerator,
                  public OwnOptimizer {
 public:
  static constexpr int64_t kLayers = 12;
  static constexpr int64_t kHeads = 12;
  static constexpr int64_t kModel = 768;
  static constexpr int64_t kContext = 1024;
  static constexpr int64_t kVocab = 50257;

  explicit Gpt2Small(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Token ids uniform in 0..kVocab-1 (as floats); labels unused (zeros).
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;
  // AdamW: lr 6e-4, betas (0.9, 0.95), weight decay 0.1.
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() override;

  // Logits (N, T, kVocab) of `tokens` (N, T) int64. With a cache, the
  // tokens continue the cached positions (which they are appended to);
  // positions past the context are the caller's error.
  torch::Tensor Logits(const torch::Tensor& tokens, KvCache* cache = nullptr);

  int64_t TokensPerSample() const override { return seq_len_; }
  int64_t GeneratedTokensPerSample() const override { return gen_tokens_; }
  torch::Tensor GenerateTimed(const torch::Tensor& input,
                              const std::function<void(int64_t)>& on_token,
                              torch::Tensor* generated) override;

 private:
  std::shared_ptr<Gpt2TransformerImpl> transformer_;
  int64_t seq_len_;
  int64_t gen_tokens_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_GPT2_H_
