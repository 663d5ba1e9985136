#include "workloads/models/memnet.h"

#include "workloads/models/counted_layers.h"

namespace powersweep {

MemNet::MemNet(const ResolvedModel& shape)
    : Model(shape), words_(shape.seq_len) {
  namespace nn = torch::nn;
  embeddings_list_ = register_module("embeddings", nn::ModuleList());
  temporal_list_ = register_module("temporal", nn::ModuleList());
  torch::NoGradGuard no_grad;
  for (int64_t k = 0; k <= kHops; ++k) {
    embeddings_.push_back(nn::Embedding(shape.vocab, kEmbedding));
    temporal_.push_back(nn::Embedding(kMemory, kEmbedding));
    embeddings_list_->push_back(embeddings_.back());
    temporal_list_->push_back(temporal_.back());
    embeddings_.back()->weight.normal_(0, 0.1);
    temporal_.back()->weight.normal_(0, 0.1);
  }
  // l_kj = (1 - j/J) - (k/d)(1 - 2j/J), j = 1..J, k = 1..d.
  const double big_j = static_cast<double>(words_);
  const double d = static_cast<double>(kEmbedding);
  position_ = torch::empty({words_, kEmbedding});
  auto p = position_.accessor<float, 2>();
  for (int64_t j = 1; j <= words_; ++j) {
    for (int64_t k = 1; k <= kEmbedding; ++k) {
      p[j - 1][k - 1] = static_cast<float>((1 - j / big_j) -
                                           (k / d) * (1 - 2 * j / big_j));
    }
  }
  position_ = register_buffer("position_encoding", position_);
}

torch::Tensor MemNet::Encode(const torch::Tensor& words,
                             torch::nn::Embedding& embedding) const {
  const torch::Tensor mask = words.ne(0).unsqueeze(-1).to(position_.dtype());
  return (embedding->forward(words) * position_ * mask).sum(-2);
}

torch::Tensor MemNet::forward(torch::Tensor x) {
  const int64_t n = x.size(0);
  const torch::Tensor tokens =
      x.reshape({n, kMemory + 1, words_}).to(torch::kLong);
  const torch::Tensor story = tokens.narrow(1, 0, kMemory);  // (N, M, J)
  const torch::Tensor question = tokens.select(1, kMemory);  // (N, J)
  torch::Tensor u = Encode(question, embeddings_[0]);        // (N, d)
  const torch::Tensor slots = torch::arange(kMemory, x.options().dtype(
                                                         torch::kLong));
  // The input memory of hop k+1 is the output memory of hop k.
  torch::Tensor memory =
      Encode(story, embeddings_[0]) + temporal_[0]->forward(slots);
  for (int64_t k = 0; k < kHops; ++k) {
    const torch::Tensor output =
        Encode(story, embeddings_[k + 1]) + temporal_[k + 1]->forward(slots);
    const torch::Tensor p =
        torch::softmax(torch::bmm(memory, u.unsqueeze(2)).squeeze(2), -1);
    u = u + torch::bmm(p.unsqueeze(1), output).squeeze(1);
    memory = output;
  }
  AddMacs(n * (kHops * 2 * kMemory * kEmbedding + kEmbedding * vocab()));
  return torch::matmul(u, embeddings_[kHops]->weight.t());
}

std::pair<torch::Tensor, torch::Tensor> MemNet::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randint(num_classes(), {n, s[0], s[1], s[2]}, torch::kFloat),
          torch::randint(num_classes(), {n}, torch::kLong)};
}

}  // namespace powersweep
