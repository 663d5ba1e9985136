#include "workloads/models/lstm_lm.h"

namespace powersweep {

LstmLm::LstmLm(const ResolvedModel& shape)
    : Model(shape), seq_len_(shape.seq_len) {
  namespace nn = torch::nn;
  encoder_ = register_module("encoder", nn::Embedding(shape.vocab, kEmbedding));
  rnn_ = register_module(
      "rnn", nn::LSTM(nn::LSTMOptions(kEmbedding, kHidden)
                          .num_layers(kLayers)
                          .dropout(kDropout)));
  decoder_ = register_module("decoder", MacLinear(kHidden, shape.vocab));
  torch::NoGradGuard no_grad;
  encoder_->weight.uniform_(-0.1, 0.1);
  decoder_->weight.uniform_(-0.1, 0.1);
  decoder_->bias.zero_();
}

torch::Tensor LstmLm::forward(torch::Tensor x) {
  const int64_t n = x.size(0);
  // (N, 1, 1, L + 1) floats -> (L, N) token ids, time-major as the example.
  torch::Tensor tokens = x.reshape({n, -1})
                             .narrow(1, 0, seq_len_)
                             .to(torch::kLong)
                             .t();
  torch::Tensor emb = torch::dropout(encoder_->forward(tokens), kDropout,
                                     is_training());
  torch::Tensor out = std::get<0>(rnn_->forward(emb));
  AddMacs(seq_len_ * n * kLayers * 4 * kHidden * (kEmbedding + kHidden));
  out = torch::dropout(out, kDropout, is_training());
  // (L, N, H) -> (N, L, vocab)
  return decoder_->forward(out.transpose(0, 1));
}

torch::Tensor LstmLm::Loss(const torch::Tensor& input,
                           const torch::Tensor& /*labels*/) {
  torch::Tensor logits = forward(input);
  torch::Tensor targets = input.reshape({input.size(0), -1})
                              .narrow(1, 1, seq_len_)
                              .to(torch::kLong);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
}

std::pair<torch::Tensor, torch::Tensor> LstmLm::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randint(num_classes(), {n, s[0], s[1], s[2]}, torch::kFloat),
          torch::zeros({n}, torch::kLong)};
}

}  // namespace powersweep
