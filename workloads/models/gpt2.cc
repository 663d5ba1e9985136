#include "workloads/models/gpt2.h"

#include <cmath>
#include <string>

#include "workloads/models/counted_layers.h"

namespace powersweep {
namespace {

constexpr double kInitStd = 0.02;
constexpr int64_t kHeadDim = Gpt2Small::kModel / Gpt2Small::kHeads;
constexpr int64_t kMlp = 4 * Gpt2Small::kModel;

// HuggingFace's Conv1D: y = x W + b with W stored (in, out); counts its
// MACs (rows x in x out) like MacLinear.
class Gpt2Conv1DImpl : public torch::nn::Module {
 public:
  Gpt2Conv1DImpl(int64_t in, int64_t out, double std) : in_(in), out_(out) {
    weight_ = register_parameter("weight", torch::randn({in, out}) * std);
    bias_ = register_parameter("bias", torch::zeros({out}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    const int64_t rows = x.numel() / in_;
    AddMacs(rows * in_ * out_);
    std::vector<int64_t> shape = x.sizes().vec();
    shape.back() = out_;
    return torch::addmm(bias_, x.reshape({rows, in_}), weight_).view(shape);
  }

 private:
  int64_t in_;
  int64_t out_;
  torch::Tensor weight_;
  torch::Tensor bias_;
};
TORCH_MODULE(Gpt2Conv1D);

torch::nn::LayerNorm MakeLayerNorm() {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions({Gpt2Small::kModel}).eps(1e-5));
}

// (N, T, 768) -> (N, heads, T, 64)
torch::Tensor SplitHeads(const torch::Tensor& x) {
  return x.view({x.size(0), x.size(1), Gpt2Small::kHeads, kHeadDim})
      .transpose(1, 2);
}

class Gpt2AttentionImpl : public torch::nn::Module {
 public:
  explicit Gpt2AttentionImpl(double proj_std) {
    c_attn_ = register_module(
        "c_attn",
        Gpt2Conv1D(Gpt2Small::kModel, 3 * Gpt2Small::kModel, kInitStd));
    c_proj_ = register_module(
        "c_proj", Gpt2Conv1D(Gpt2Small::kModel, Gpt2Small::kModel, proj_std));
  }
  // With `keys`/`values` (this layer's cache slots), the new positions'
  // keys and values are appended to them and attend to every cached one.
  torch::Tensor forward(const torch::Tensor& x, torch::Tensor* keys,
                        torch::Tensor* values) {
    const std::vector<torch::Tensor> qkv =
        c_attn_->forward(x).split(Gpt2Small::kModel, -1);
    const torch::Tensor q = SplitHeads(qkv[0]);
    torch::Tensor k = SplitHeads(qkv[1]);
    torch::Tensor v = SplitHeads(qkv[2]);
    if (keys != nullptr) {
      if (keys->defined()) {
        k = torch::cat({*keys, k}, 2);
        v = torch::cat({*values, v}, 2);
      }
      *keys = k;
      *values = v;
    }
    const int64_t t = q.size(2);
    const int64_t total = k.size(2);
    torch::Tensor scores =
        q.matmul(k.transpose(-1, -2)) / std::sqrt(static_cast<double>(kHeadDim));
    if (t > 1) {
      // Query i sits at position total - t + i and sees keys up to it.
      const torch::Tensor future =
          torch::ones({t, total}, torch::TensorOptions()
                                      .dtype(torch::kBool)
                                      .device(x.device()))
              .triu(total - t + 1);
      scores = scores.masked_fill(future, -INFINITY);
    }
    const torch::Tensor out = torch::softmax(scores, -1).matmul(v);
    return c_proj_->forward(
        out.transpose(1, 2).reshape({x.size(0), t, Gpt2Small::kModel}));
  }

 private:
  Gpt2Conv1D c_attn_{nullptr};
  Gpt2Conv1D c_proj_{nullptr};
};
TORCH_MODULE(Gpt2Attention);

class Gpt2MlpImpl : public torch::nn::Module {
 public:
  explicit Gpt2MlpImpl(double proj_std) {
    c_fc_ = register_module("c_fc",
                            Gpt2Conv1D(Gpt2Small::kModel, kMlp, kInitStd));
    c_proj_ = register_module("c_proj",
                              Gpt2Conv1D(kMlp, Gpt2Small::kModel, proj_std));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return c_proj_->forward(torch::gelu(c_fc_->forward(x), "tanh"));
  }

 private:
  Gpt2Conv1D c_fc_{nullptr};
  Gpt2Conv1D c_proj_{nullptr};
};
TORCH_MODULE(Gpt2Mlp);

class Gpt2BlockImpl : public torch::nn::Module {
 public:
  Gpt2BlockImpl() {
    const double proj_std =
        kInitStd / std::sqrt(2.0 * static_cast<double>(Gpt2Small::kLayers));
    ln_1_ = register_module("ln_1", MakeLayerNorm());
    attn_ = register_module("attn", Gpt2Attention(proj_std));
    ln_2_ = register_module("ln_2", MakeLayerNorm());
    mlp_ = register_module("mlp", Gpt2Mlp(proj_std));
  }
  torch::Tensor forward(torch::Tensor x, torch::Tensor* keys,
                        torch::Tensor* values) {
    x = x + attn_->forward(ln_1_->forward(x), keys, values);
    return x + mlp_->forward(ln_2_->forward(x));
  }

 private:
  torch::nn::LayerNorm ln_1_{nullptr};
  Gpt2Attention attn_{nullptr};
  torch::nn::LayerNorm ln_2_{nullptr};
  Gpt2Mlp mlp_{nullptr};
};
TORCH_MODULE(Gpt2Block);

}  // namespace

class Gpt2TransformerImpl : public torch::nn::Module {
 public:
  Gpt2TransformerImpl() {
    namespace nn = torch::nn;
    wte_ = register_module(
        "wte", nn::Embedding(nn::EmbeddingOptions(Gpt2Small::kVocab,
                                                  Gpt2Small::kModel)));
    wpe_ = register_module(
        "wpe", nn::Embedding(nn::EmbeddingOptions(Gpt2Small::kContext,
                                                  Gpt2Small::kModel)));
    {
      torch::NoGradGuard no_grad;
      wte_->weight.normal_(0, kInitStd);
      wpe_->weight.normal_(0, kInitStd);
    }
    h_ = register_module("h", nn::ModuleList());
    for (int64_t i = 0; i < Gpt2Small::kLayers; ++i) {
      blocks_.push_back(Gpt2Block());
      h_->push_back(blocks_.back());
    }
    ln_f_ = register_module("ln_f", MakeLayerNorm());
  }

  // Logits of `tokens` (N, T) continuing `cache` (may be null).
  torch::Tensor forward(const torch::Tensor& tokens, KvCache* cache) {
    const int64_t past = cache == nullptr ? 0 : cache->positions();
    const int64_t t = tokens.size(1);
    const torch::Tensor positions = torch::arange(
        past, past + t,
        torch::TensorOptions().dtype(torch::kLong).device(tokens.device()));
    torch::Tensor x = wte_->forward(tokens) + wpe_->forward(positions);
    if (cache != nullptr && cache->keys.empty()) {
      cache->keys.resize(Gpt2Small::kLayers);
      cache->values.resize(Gpt2Small::kLayers);
    }
    for (size_t i = 0; i < blocks_.size(); ++i) {
      x = blocks_[i]->forward(x, cache ? &cache->keys[i] : nullptr,
                              cache ? &cache->values[i] : nullptr);
    }
    x = ln_f_->forward(x);
    // The output layer is tied to the token embedding.
    AddMacs(x.numel() / Gpt2Small::kModel * Gpt2Small::kModel *
            Gpt2Small::kVocab);
    return torch::linear(x, wte_->weight);
  }

 private:
  torch::nn::Embedding wte_{nullptr};
  torch::nn::Embedding wpe_{nullptr};
  torch::nn::ModuleList h_{nullptr};
  std::vector<Gpt2Block> blocks_;
  torch::nn::LayerNorm ln_f_{nullptr};
};

Gpt2Small::Gpt2Small(const ResolvedModel& shape)
    : Model(shape), seq_len_(shape.seq_len), gen_tokens_(shape.gen_tokens) {
  transformer_ = register_module("transformer",
                                 std::make_shared<Gpt2TransformerImpl>());
}

torch::Tensor Gpt2Small::Logits(const torch::Tensor& tokens, KvCache* cache) {
  return transformer_->forward(tokens, cache);
}

torch::Tensor Gpt2Small::forward(torch::Tensor x) {
  const torch::Tensor tokens = x.reshape({x.size(0), -1}).to(torch::kLong);
  return Logits(tokens.slice(1, 0, seq_len_));
}

torch::Tensor Gpt2Small::Loss(const torch::Tensor& input,
                              const torch::Tensor& /*labels*/) {
  const torch::Tensor tokens =
      input.reshape({input.size(0), -1}).to(torch::kLong);
  const torch::Tensor logits = Logits(tokens.slice(1, 0, seq_len_));
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, kVocab}),
      tokens.slice(1, 1, seq_len_ + 1).reshape({-1}));
}

std::unique_ptr<torch::optim::Optimizer> Gpt2Small::MakeOptimizer() {
  return std::make_unique<torch::optim::AdamW>(
      parameters(), torch::optim::AdamWOptions(6e-4)
                        .betas(std::make_tuple(0.9, 0.95))
                        .weight_decay(0.1));
}

std::pair<torch::Tensor, torch::Tensor> Gpt2Small::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randint(kVocab, {n, s[0], s[1], s[2]}, torch::kFloat32),
          torch::zeros({n}, torch::kLong)};
}

torch::Tensor Gpt2Small::GenerateTimed(
    const torch::Tensor& input, const std::function<void(int64_t)>& on_token,
    torch::Tensor* generated) {
  const torch::Tensor tokens =
      input.reshape({input.size(0), -1}).to(torch::kLong);
  KvCache cache;
  torch::Tensor logits = Logits(tokens.slice(1, 0, seq_len_), &cache);
  const torch::Tensor loss = torch::nn::functional::cross_entropy(
      logits.reshape({-1, kVocab}),
      tokens.slice(1, 1, seq_len_ + 1).reshape({-1}));
  torch::Tensor next;
  std::vector<torch::Tensor> on_host;
  for (int64_t i = 0; i < gen_tokens_; ++i) {
    if (i > 0) logits = Logits(next.unsqueeze(1), &cache);
    next = logits.select(1, -1).argmax(-1);
    // Reading the token back waits for the kernels that made it.
    on_host.push_back(next.to(torch::kCPU));
    if (on_token) on_token(i);
  }
  if (generated != nullptr) *generated = torch::stack(on_host, 1);
  return loss;
}

}  // namespace powersweep
