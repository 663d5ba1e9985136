// mobilebert: the MobileBERT encoder (Sun et al., ACL 2020, "MobileBERT: a
// Compact Task-Agnostic BERT for Resource-Limited Devices") at the shape of
// HuggingFace's google/mobilebert-uncased config, with its masked-LM head
// (HuggingFace's MobileBertForMaskedLM), randomly initialised:
//   embeddings  word 128-wide (padding id 0), trigram input (the embeddings
//               of the next, current and previous token concatenated, 384)
//               -> Linear 384->512; + position (512 positions) + token type
//               (2 types, all 0 here); NoNorm (elementwise x * w + b)
//   24 layers   hidden 512, intra-bottleneck 128, key/query sharing one
//               bottleneck: input bottleneck (Linear 512->128, NoNorm) is
//               the residual, attention bottleneck (Linear 512->128, NoNorm)
//               feeds query and key, value reads the 512-wide hidden state;
//               4 heads of 32; self-output Linear 128->128 + residual,
//               NoNorm; 3 stacked FFNs (128->512 ReLU ->128, residual,
//               NoNorm) and the layer's own FFN (128->512 ReLU ->128 +
//               residual, NoNorm) whose output bottleneck (Linear 128->512
//               + the layer input, NoNorm) returns to 512
//   MLM head    Linear 512->512, ReLU, LayerNorm (eps 1e-12); logits =
//               h @ [word_embeddings^T ; dense] + bias: the decoder's first
//               128 rows are the word embeddings (tied), the other 384 its
//               own "cls.predictions.dense" weight
// Parameter names are HuggingFace's ("mobilebert.embeddings.
// word_embeddings.weight", "mobilebert.encoder.layer.0.attention.self.
// query.weight", ..., "cls.predictions.bias"); the tied decoder weight
// appears once, as the word embeddings (as named_parameters() lists it in
// PyTorch). 36.6 M parameters at the 30,522-token vocabulary (describe
// prints the exact count): the encoder's 24.6 M (MobileBERT's paper gives
// 25.3 M with the pooler) and the head's 0.26 M transform, 11.7 M own
// decoder rows (384 x vocab) and the bias. Dropout: 0.1 on the attention probabilities in
// training (hidden dropout is 0.0 in the config). Initialisation as
// HuggingFace's: Linear and Embedding weights normal(0, 0.02), biases 0,
// NoNorm and LayerNorm weights 1.
//
// The sequence-classification head is not built: both tasks use the
// masked-LM head, since the text sets are unlabelled. Input: (N, 1, 1,
// seq_len) token ids carried as floats; forward() returns the masked-LM
// logits (N, seq_len, vocab) of the unmasked input. Loss() masks as BERT's
// pre-training does -- each position chosen with probability 0.15 (and one
// position per sample always, so no sample is without a target), a chosen
// token replaced by <mask> (id 3, text_dataset.h) 80% of the time, by a
// random token 10%, kept 10% -- drawing from torch's generator, and returns
// the cross-entropy of the chosen positions' logits against the original
// tokens. Inference runs the same loss under no-grad.
//
// MACs (describe.h): counted Linear layers, plus the attention's two batched
// products (QK^T and PV: 2 x seq_len^2 x 128 per layer and sample) and the
// masked-LM decoder (512 x vocab per token).
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_MOBILEBERT_H_
#define POWERSWEEP_WORKLOADS_MODELS_MOBILEBERT_H_

#include "workloads/models/model.h"

namespace powersweep {

struct MobileBertShape {
  static constexpr int64_t kEmbedding = 128;
  static constexpr int64_t kHidden = 512;
  static constexpr int64_t kBottleneck = 128;  // intra-bottleneck (true hidden)
  static constexpr int64_t kIntermediate = 512;
  static constexpr int64_t kHeads = 4;
  static constexpr int64_t kLayers = 24;
  static constexpr int64_t kFeedForwards = 4;  // including the layer's own
  static constexpr int64_t kPositions = 512;
  static constexpr int64_t kTokenTypes = 2;
  static constexpr double kAttentionDropout = 0.1;
  static constexpr int64_t kMaskToken = 3;
  static constexpr double kMaskProbability = 0.15;
};

class MobileBertImpl;  // mobilebert.cc: the encoder (HuggingFace's
                       // MobileBertModel without the pooler)
class MobileBertMlmHeadImpl;

class MobileBert : public Model {
 public:
  explicit MobileBert(const ResolvedModel& shape);
  ~MobileBert() override;
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Token ids uniform in 0..vocab-1, labels zero.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;

 private:
  torch::Tensor Logits(const torch::Tensor& tokens);

  int64_t vocab_;
  std::shared_ptr<MobileBertImpl> encoder_;
  std::shared_ptr<torch::nn::Module> cls_;
  std::shared_ptr<MobileBertMlmHeadImpl> head_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_MOBILEBERT_H_
