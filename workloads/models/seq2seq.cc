#include "workloads/models/seq2seq.h"

namespace powersweep {

Seq2Seq::Seq2Seq(const ResolvedModel& shape, Cell cell)
    : Model(shape), seq_len_(shape.seq_len), cell_(cell) {
  namespace nn = torch::nn;
  const auto gru = [] {
    return nn::GRU(nn::GRUOptions(kEmbedding, kHidden)
                       .num_layers(kLayers)
                       .batch_first(true));
  };
  const auto lstm = [] {
    return nn::LSTM(nn::LSTMOptions(kEmbedding, kHidden)
                        .num_layers(kLayers)
                        .batch_first(true));
  };
  encoder_embedding_ = register_module(
      "encoder_embedding", nn::Embedding(shape.vocab, kEmbedding));
  if (cell_ == Cell::kGru) {
    encoder_gru_ = register_module("encoder", gru());
  } else {
    encoder_lstm_ = register_module("encoder", lstm());
  }
  decoder_embedding_ = register_module(
      "decoder_embedding", nn::Embedding(shape.vocab, kEmbedding));
  if (cell_ == Cell::kGru) {
    decoder_gru_ = register_module("decoder", gru());
  } else {
    decoder_lstm_ = register_module("decoder", lstm());
  }
  attention_ = register_module(
      "attention", MacLinear(nn::LinearOptions(kHidden, kHidden).bias(false)));
  attention_combine_ = register_module(
      "attention_combine",
      MacLinear(nn::LinearOptions(2 * kHidden, kHidden).bias(false)));
  generator_ = register_module("generator", MacLinear(kHidden, shape.vocab));
}

int64_t Seq2Seq::RecurrentMacsPerToken() const {
  const int64_t gates = cell_ == Cell::kGru ? 3 : 4;
  return gates * kHidden * (kEmbedding + kHidden) +
         (kLayers - 1) * gates * kHidden * (2 * kHidden);
}

std::pair<torch::Tensor, Seq2Seq::State> Seq2Seq::Encode(
    const torch::Tensor& x) {
  AddMacs(x.size(0) * x.size(1) * RecurrentMacsPerToken());
  if (cell_ == Cell::kGru) {
    auto [out, h] = encoder_gru_->forward(x);
    return {out, State{h, {}}};
  }
  auto [out, hc] = encoder_lstm_->forward(x);
  return {out, State{std::get<0>(hc), std::get<1>(hc)}};
}

std::pair<torch::Tensor, Seq2Seq::State> Seq2Seq::Decode(
    const torch::Tensor& x, const State& state) {
  AddMacs(x.size(0) * x.size(1) * RecurrentMacsPerToken());
  if (cell_ == Cell::kGru) {
    auto [out, h] = decoder_gru_->forward(x, state.h);
    return {out, State{h, {}}};
  }
  auto [out, hc] =
      decoder_lstm_->forward(x, std::make_tuple(state.h, state.c));
  return {out, State{std::get<0>(hc), std::get<1>(hc)}};
}

torch::Tensor Seq2Seq::Source(const torch::Tensor& x) const {
  return x.reshape({x.size(0), -1}).narrow(1, 0, seq_len_).to(torch::kLong);
}

torch::Tensor Seq2Seq::Target(const torch::Tensor& x) const {
  return Source(x).flip({1});
}

torch::Tensor Seq2Seq::Attend(const torch::Tensor& h,
                              const torch::Tensor& memory,
                              const torch::Tensor& keys) {
  // scores (N, T, L) = h keys^T; context (N, T, H) = softmax(scores) memory
  const torch::Tensor weights =
      torch::softmax(torch::bmm(h, keys.transpose(1, 2)), -1);
  const torch::Tensor context = torch::bmm(weights, memory);
  AddMacs(2 * h.size(0) * h.size(1) * memory.size(1) * kHidden);
  return torch::tanh(attention_combine_->forward(torch::cat({context, h}, -1)));
}

torch::Tensor Seq2Seq::forward(torch::Tensor x) {
  const int64_t n = x.size(0);
  const torch::Tensor source = Source(x);
  auto [memory, state] = Encode(encoder_embedding_->forward(source));
  const torch::Tensor keys = attention_->forward(memory);
  // Teacher forcing: <eos>, then the target shifted right by one.
  const torch::Tensor target = source.flip({1});
  const torch::Tensor inputs = torch::cat(
      {torch::full({n, 1}, kStartToken, target.options()),
       target.narrow(1, 0, seq_len_ - 1)},
      1);
  const torch::Tensor h =
      Decode(decoder_embedding_->forward(inputs), state).first;
  return generator_->forward(Attend(h, memory, keys));
}

torch::Tensor Seq2Seq::Greedy(const torch::Tensor& x) {
  const int64_t n = x.size(0);
  const torch::Tensor source = Source(x);
  auto [memory, state] = Encode(encoder_embedding_->forward(source));
  const torch::Tensor keys = attention_->forward(memory);
  torch::Tensor token = torch::full({n, 1}, kStartToken, source.options());
  std::vector<torch::Tensor> steps;
  steps.reserve(seq_len_);
  for (int64_t t = 0; t < seq_len_; ++t) {
    auto [h, next] = Decode(decoder_embedding_->forward(token), state);
    state = next;
    torch::Tensor logits = generator_->forward(Attend(h, memory, keys));
    token = logits.argmax(-1);
    steps.push_back(logits);
  }
  return torch::cat(steps, 1);
}

torch::Tensor Seq2Seq::Loss(const torch::Tensor& input,
                            const torch::Tensor& /*labels*/) {
  const torch::Tensor logits = is_training() ? forward(input) : Greedy(input);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, logits.size(-1)}), Target(input).reshape({-1}));
}

std::pair<torch::Tensor, torch::Tensor> Seq2Seq::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randint(num_classes(), {n, s[0], s[1], s[2]}, torch::kFloat),
          torch::zeros({n}, torch::kLong)};
}

std::unique_ptr<torch::optim::Optimizer> Seq2Seq::MakeOptimizer() {
  return std::make_unique<torch::optim::Adam>(parameters(),
                                              torch::optim::AdamOptions(1e-3));
}

}  // namespace powersweep
