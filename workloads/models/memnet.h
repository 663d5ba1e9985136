// memnet: Fathom's end-to-end memory network (Sukhbaatar et al. 2015,
// "End-To-End Memory Networks", the bAbI model) with the paper's bAbI
// sizes: embedding d = 20, a memory of the 50 most recent story sentences,
// K = 3 hops, adjacent weight tying, position encoding (PE) and temporal
// encoding (TE), the answer a word of the vocabulary:
//   embeddings.0 .. embeddings.3   Embedding(vocab, 20): A^1 (= B, the
//                                  question's), C^1 = A^2, C^2 = A^3, C^3
//                                  (= W^T, the answer layer's)
//   temporal.0 .. temporal.3       Embedding(50, 20): T_A^1, T_C^1 = T_A^2,
//                                  T_C^2 = T_A^3, T_C^3
// A sentence's vector is sum_j l_j * embedding(word j), l_kj = (1 - j/J) -
// (k/d)(1 - 2j/J) (1-based j over the J = seq_len word slots); <pad>
// (id 0) words add nothing. Memory slot i adds its temporal row i (slot 0
// the most recent sentence). Hop k: p = softmax(u . m_i), o = sum_i p_i
// c_i, u <- u + o; logits = u^T W^T after the third hop. No slot is
// masked: an empty slot (all <pad>) holds its temporal row only.
// Initialisation: normal(0, 0.1), as the paper.
//
// Input: (N, 1, 1, (50 + 1) x seq_len) token ids carried as floats: 50
// memory slots of seq_len words (slot 0 the sentence just before the
// question), then the question's seq_len words (babi_dataset.h). seq_len
// is the words per sentence. forward() returns the answer logits (N,
// vocab); Loss() is the model default, the cross-entropy against the
// per-sample labels (the answers). Trained with SGD (step.h's default).
//
// MACs (describe.h): embedding lookups and the position weighting are not
// counted; each hop adds 2 x 50 x d (the match scores and the weighted
// sum), the answer layer d x vocab.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_MEMNET_H_
#define POWERSWEEP_WORKLOADS_MODELS_MEMNET_H_

#include <utility>
#include <vector>

#include "workloads/models/model.h"

namespace powersweep {

class MemNet : public Model {
 public:
  static constexpr int64_t kEmbedding = 20;
  static constexpr int64_t kMemory = 50;
  static constexpr int64_t kHops = 3;

  explicit MemNet(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  // Token ids uniform in 0..vocab-1 (so some <pad>), answers uniform.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;

 private:
  // Sentence vectors (..., d) of word ids (..., J) through `embedding`.
  torch::Tensor Encode(const torch::Tensor& words,
                       torch::nn::Embedding& embedding) const;

  int64_t words_;  // J = seq_len
  torch::Tensor position_;  // (J, d) buffer, not a parameter
  torch::nn::ModuleList embeddings_list_{nullptr};
  torch::nn::ModuleList temporal_list_{nullptr};
  std::vector<torch::nn::Embedding> embeddings_;
  std::vector<torch::nn::Embedding> temporal_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_MEMNET_H_
