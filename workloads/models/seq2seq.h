// seq2seq and seq2seq_lstm: Fathom's encoder-decoder with attention over
// the encoder states (Luong et al. 2015's "general" score). The recurrent
// cell is a constructor argument: GRU for `seq2seq` (the cell of
// TensorFlow's translate example that Fathom's seq2seq builds on), LSTM for
// `seq2seq_lstm` (the example's other cell); everything else is the same:
//   encoder_embedding    Embedding(vocab, 256)
//   encoder              GRU or LSTM(256 -> 512, 2 layers, batch_first)
//   decoder_embedding    Embedding(vocab, 256)
//   decoder              GRU or LSTM(256 -> 512, 2 layers, batch_first),
//                        its initial state the encoder's final state (the
//                        LSTM's: both h and c)
//   attention            Linear(512 -> 512, no bias): score(h_t, s_j) =
//                        h_t . (W_a s_j), softmax over the source positions
//   attention_combine    Linear(1024 -> 512, no bias): h~_t = tanh(W_c [c_t;
//                        h_t]), c_t the attention-weighted source states
//   generator            Linear(512 -> vocab)
// Initialisation: torch's defaults.
//
// The task (a shape-faithful workload, not a translation corpus): the
// source is a window of seq_len tokens of a text set (or of `synthetic`
// random ids) and the target the same window reversed, a task attention
// solves (target position t attends to source position seq_len - 1 - t).
// The decoder starts from <eos> (id 2, text_dataset.h) as its
// start-of-sequence token.
//
// Input: (N, 1, 1, seq_len) token ids carried as floats. forward() is the
// teacher-forced pass: the decoder reads <eos> and the target's first
// seq_len - 1 tokens and returns logits (N, seq_len, vocab). Loss() in
// training mode is the mean cross-entropy of those logits against the
// target (teacher forcing); in eval mode it decodes greedily, seq_len
// steps, each step's input the previous step's argmax, and returns the
// cross-entropy of the greedy logits against the target. The per-sample
// labels are not used. Trained with Adam, lr 1e-3 (own_optimizer.h).
//
// MACs (describe.h): embedding lookups are free; each GRU adds per token
// and layer 3 x hidden x (input + hidden) (its three gates' two matrix
// products), each LSTM 4 x hidden x (input + hidden) (four gates);
// attention adds its two batched products, seq_len x seq_len x hidden each
// (scores and context) per sample; the three Linear layers
// are counted (attention applies to the seq_len encoder states). Greedy
// decoding does the same work per step as the teacher-forced pass.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_SEQ2SEQ_H_
#define POWERSWEEP_WORKLOADS_MODELS_SEQ2SEQ_H_

#include <memory>
#include <utility>

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"
#include "workloads/models/own_optimizer.h"

namespace powersweep {

class Seq2Seq : public Model, public OwnOptimizer {
 public:
  static constexpr int64_t kEmbedding = 256;
  static constexpr int64_t kHidden = 512;
  static constexpr int64_t kLayers = 2;
  static constexpr int64_t kStartToken = 2;  // <eos>

  enum class Cell { kGru, kLstm };

  Seq2Seq(const ResolvedModel& shape, Cell cell);
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Token ids uniform in 0..vocab-1, labels zero.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;
  // Adam, lr 1e-3.
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() override;

  // Greedy decoding of seq_len tokens: logits (N, seq_len, vocab).
  torch::Tensor Greedy(const torch::Tensor& x);
  // The target of a batch: the source window reversed, (N, seq_len) int64.
  torch::Tensor Target(const torch::Tensor& x) const;

 private:
  // A recurrent state: h (layers, N, H), and c likewise for the LSTM
  // (undefined for the GRU).
  struct State {
    torch::Tensor h, c;
  };
  // Runs the encoder (or the decoder from `state`) over embedded `x`
  // (N, T, E), counting its MACs: the outputs (N, T, H) and the final state.
  std::pair<torch::Tensor, State> Encode(const torch::Tensor& x);
  std::pair<torch::Tensor, State> Decode(const torch::Tensor& x,
                                         const State& state);
  // MACs per token of one pass of the 2-layer encoder or decoder.
  int64_t RecurrentMacsPerToken() const;
  // Source ids (N, seq_len) int64 from the float input.
  torch::Tensor Source(const torch::Tensor& x) const;
  // Attention over `memory` (N, L, H) with keys `keys` (= W_a memory) for
  // decoder states `h` (N, T, H): h~ (N, T, H).
  torch::Tensor Attend(const torch::Tensor& h, const torch::Tensor& memory,
                       const torch::Tensor& keys);

  int64_t seq_len_;
  Cell cell_;
  torch::nn::Embedding encoder_embedding_{nullptr};
  torch::nn::Embedding decoder_embedding_{nullptr};
  // One pair is built (registered as "encoder" / "decoder"), per cell_.
  torch::nn::GRU encoder_gru_{nullptr}, decoder_gru_{nullptr};
  torch::nn::LSTM encoder_lstm_{nullptr}, decoder_lstm_{nullptr};
  MacLinear attention_{nullptr};
  MacLinear attention_combine_{nullptr};
  MacLinear generator_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_SEQ2SEQ_H_
