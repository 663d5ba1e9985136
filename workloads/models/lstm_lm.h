// lstm_lm: the word-level language model of PyTorch's word_language_model
// example (examples/word_language_model/model.py, RNNModel with rnn_type
// LSTM) at the example's default sizes:
//   encoder  Embedding(vocab, 200)
//   rnn      LSTM(200 -> 200, 2 layers, batch_first=False, dropout 0.2
//            between the layers)
//   decoder  Linear(200 -> vocab)
// untied (--tied off), dropout 0.2 on the embeddings and on the LSTM output
// in training. Parameter names are the example's: encoder.weight,
// rnn.weight_ih_l0, rnn.weight_hh_l0, rnn.bias_ih_l0, rnn.bias_hh_l0, the
// same for l1, decoder.weight, decoder.bias. Initialisation as the example:
// encoder and decoder weights uniform(-0.1, 0.1), decoder bias zero, the
// LSTM torch's default.
//
// Input: (N, 1, 1, seq_len + 1) token ids carried as floats (catalog.h).
// forward() reads the first seq_len tokens of each sample and returns the
// next-token logits (N, seq_len, vocab). Loss() is the mean cross-entropy
// of those logits against the last seq_len tokens (each token's successor);
// the per-sample labels are not used. Every minibatch starts from a zero
// hidden state (the loader shuffles the windows, so there is no previous
// batch to carry it from, unlike the example's sequential BPTT).
//
// MACs (describe.h): embedding lookups are free; the LSTM adds per token
// and layer 4 x hidden x (input + hidden) multiply-accumulates (its four
// gates' two matrix products); the decoder is a counted Linear.
// Not thread-safe (a torch module); see model.h.
#ifndef POWERSWEEP_WORKLOADS_MODELS_LSTM_LM_H_
#define POWERSWEEP_WORKLOADS_MODELS_LSTM_LM_H_

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"

namespace powersweep {

class LstmLm : public Model {
 public:
  static constexpr int64_t kEmbedding = 200;
  static constexpr int64_t kHidden = 200;
  static constexpr int64_t kLayers = 2;
  static constexpr double kDropout = 0.2;

  explicit LstmLm(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Token ids uniform in 0..vocab-1, labels zero.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;

 private:
  int64_t seq_len_;
  torch::nn::Embedding encoder_{nullptr};
  torch::nn::LSTM rnn_{nullptr};
  MacLinear decoder_{nullptr};
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_LSTM_LM_H_
