#include "workloads/models/mobilebert.h"

#include <cmath>
#include <string>
#include <vector>

#include "workloads/models/counted_layers.h"

namespace powersweep {

namespace nn = torch::nn;
using S = MobileBertShape;

namespace {

constexpr double kInitStd = 0.02;

// MobileBERT's "no_norm" normalisation: x * weight + bias, elementwise.
class NoNormImpl : public nn::Module {
 public:
  explicit NoNormImpl(int64_t width) {
    weight = register_parameter("weight", torch::ones({width}));
    bias = register_parameter("bias", torch::zeros({width}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return x * weight + bias; }
  torch::Tensor weight, bias;
};

MacLinear Dense(int64_t in, int64_t out, bool bias = true) {
  return MacLinear(nn::LinearOptions(in, out).bias(bias));
}

// A Linear named "dense" followed by a NoNorm named "LayerNorm" over
// dense(x) + residual (HuggingFace's BottleneckLayer has no residual;
// MobileBertSelfOutput, FFNOutput and OutputBottleneck do).
class DenseNormImpl : public nn::Module {
 public:
  DenseNormImpl(int64_t in, int64_t out) {
    dense = register_module("dense", Dense(in, out));
    norm = register_module("LayerNorm", std::make_shared<NoNormImpl>(out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return norm->forward(dense->forward(x));
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual) {
    return norm->forward(dense->forward(x) + residual);
  }
  MacLinear dense{nullptr};
  std::shared_ptr<NoNormImpl> norm;
};

// HuggingFace's MobileBertIntermediate: Linear named "dense", then ReLU.
class IntermediateImpl : public nn::Module {
 public:
  IntermediateImpl() {
    dense = register_module("dense", Dense(S::kBottleneck, S::kIntermediate));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::relu(dense->forward(x));
  }
  MacLinear dense{nullptr};
};

// Multi-head attention over the bottlenecked query/key and the full-width
// value: "query", "key" (128 -> 128), "value" (512 -> 128).
class SelfAttentionImpl : public nn::Module {
 public:
  SelfAttentionImpl() {
    query = register_module("query", Dense(S::kBottleneck, S::kBottleneck));
    key = register_module("key", Dense(S::kBottleneck, S::kBottleneck));
    value = register_module("value", Dense(S::kHidden, S::kBottleneck));
  }
  // (N, L, width) -> (N, heads, L, head_size)
  static torch::Tensor Heads(const torch::Tensor& x) {
    return x.view({x.size(0), x.size(1), S::kHeads, S::kBottleneck / S::kHeads})
        .transpose(1, 2);
  }
  torch::Tensor forward(const torch::Tensor& qk, const torch::Tensor& v) {
    const int64_t n = qk.size(0), len = qk.size(1);
    torch::Tensor q = Heads(query->forward(qk));
    torch::Tensor k = Heads(key->forward(qk));
    torch::Tensor vv = Heads(value->forward(v));
    const double scale = 1.0 / std::sqrt(double(S::kBottleneck / S::kHeads));
    torch::Tensor probs =
        torch::softmax(torch::matmul(q, k.transpose(-1, -2)) * scale, -1);
    probs = torch::dropout(probs, S::kAttentionDropout, is_training());
    torch::Tensor ctx = torch::matmul(probs, vv);
    AddMacs(2 * n * len * len * S::kBottleneck);  // QK^T and PV
    return ctx.transpose(1, 2).reshape({n, len, S::kBottleneck});
  }
  MacLinear query{nullptr}, key{nullptr}, value{nullptr};
};

class AttentionImpl : public nn::Module {
 public:
  AttentionImpl() {
    self = register_module("self", std::make_shared<SelfAttentionImpl>());
    output = register_module(
        "output", std::make_shared<DenseNormImpl>(S::kBottleneck, S::kBottleneck));
  }
  std::shared_ptr<SelfAttentionImpl> self;
  std::shared_ptr<DenseNormImpl> output;
};

// One stacked feed-forward network: "intermediate" then "output".
class FfnImpl : public nn::Module {
 public:
  FfnImpl() {
    intermediate =
        register_module("intermediate", std::make_shared<IntermediateImpl>());
    output = register_module(
        "output",
        std::make_shared<DenseNormImpl>(S::kIntermediate, S::kBottleneck));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return output->forward(intermediate->forward(x), x);
  }
  std::shared_ptr<IntermediateImpl> intermediate;
  std::shared_ptr<DenseNormImpl> output;
};

// HuggingFace's MobileBertOutput: "dense" 512 -> 128 + residual, NoNorm
// "LayerNorm", then "bottleneck" 128 -> 512 + the layer input, NoNorm.
class OutputImpl : public nn::Module {
 public:
  OutputImpl() {
    dense = register_module("dense", Dense(S::kIntermediate, S::kBottleneck));
    norm = register_module("LayerNorm",
                           std::make_shared<NoNormImpl>(S::kBottleneck));
    bottleneck = register_module(
        "bottleneck",
        std::make_shared<DenseNormImpl>(S::kBottleneck, S::kHidden));
  }
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual,
                        const torch::Tensor& layer_input) {
    torch::Tensor y = norm->forward(dense->forward(x) + residual);
    return bottleneck->forward(y, layer_input);
  }
  MacLinear dense{nullptr};
  std::shared_ptr<NoNormImpl> norm;
  std::shared_ptr<DenseNormImpl> bottleneck;
};

class BottleneckImpl : public nn::Module {
 public:
  BottleneckImpl() {
    input = register_module(
        "input", std::make_shared<DenseNormImpl>(S::kHidden, S::kBottleneck));
    attention = register_module(
        "attention",
        std::make_shared<DenseNormImpl>(S::kHidden, S::kBottleneck));
  }
  std::shared_ptr<DenseNormImpl> input, attention;
};

class LayerImpl : public nn::Module {
 public:
  LayerImpl() {
    attention = register_module("attention", std::make_shared<AttentionImpl>());
    intermediate =
        register_module("intermediate", std::make_shared<IntermediateImpl>());
    output = register_module("output", std::make_shared<OutputImpl>());
    bottleneck =
        register_module("bottleneck", std::make_shared<BottleneckImpl>());
    nn::ModuleList ffns;
    for (int64_t i = 0; i + 1 < S::kFeedForwards; ++i) {
      auto f = std::make_shared<FfnImpl>();
      ffns->push_back(f);
      ffn.push_back(f);
    }
    register_module("ffn", ffns);
  }
  torch::Tensor forward(const torch::Tensor& hidden) {
    torch::Tensor layer_input = bottleneck->input->forward(hidden);
    torch::Tensor shared = bottleneck->attention->forward(hidden);
    torch::Tensor ctx = attention->self->forward(shared, hidden);
    torch::Tensor out = attention->output->forward(ctx, layer_input);
    for (const auto& f : ffn) out = f->forward(out);
    return output->forward(intermediate->forward(out), out, hidden);
  }
  std::shared_ptr<AttentionImpl> attention;
  std::shared_ptr<IntermediateImpl> intermediate;
  std::shared_ptr<OutputImpl> output;
  std::shared_ptr<BottleneckImpl> bottleneck;
  std::vector<std::shared_ptr<FfnImpl>> ffn;
};

class EmbeddingsImpl : public nn::Module {
 public:
  explicit EmbeddingsImpl(int64_t vocab) {
    word_embeddings = register_module(
        "word_embeddings",
        nn::Embedding(nn::EmbeddingOptions(vocab, S::kEmbedding).padding_idx(0)));
    position_embeddings = register_module(
        "position_embeddings", nn::Embedding(S::kPositions, S::kHidden));
    token_type_embeddings = register_module(
        "token_type_embeddings", nn::Embedding(S::kTokenTypes, S::kHidden));
    embedding_transformation = register_module(
        "embedding_transformation", Dense(3 * S::kEmbedding, S::kHidden));
    norm = register_module("LayerNorm", std::make_shared<NoNormImpl>(S::kHidden));
  }
  // tokens: (N, L) int64.
  torch::Tensor forward(const torch::Tensor& tokens) {
    namespace F = torch::nn::functional;
    const int64_t len = tokens.size(1);
    torch::Tensor e = word_embeddings->forward(tokens);  // (N, L, 128)
    // Trigram input: [next token's, this token's, previous token's], zero
    // past either end.
    torch::Tensor next = F::pad(e.narrow(1, 1, len - 1),
                                F::PadFuncOptions({0, 0, 0, 1}));
    torch::Tensor prev = F::pad(e.narrow(1, 0, len - 1),
                                F::PadFuncOptions({0, 0, 1, 0}));
    torch::Tensor x =
        embedding_transformation->forward(torch::cat({next, e, prev}, 2));
    torch::Tensor positions =
        torch::arange(len, tokens.options()).unsqueeze(0);
    x = x + position_embeddings->forward(positions) +
        token_type_embeddings->forward(torch::zeros_like(tokens));
    return norm->forward(x);
  }
  nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr},
      token_type_embeddings{nullptr};
  MacLinear embedding_transformation{nullptr};
  std::shared_ptr<NoNormImpl> norm;
};

}  // namespace

// HuggingFace's MobileBertModel without the pooler: "embeddings", "encoder".
class MobileBertImpl : public nn::Module {
 public:
  explicit MobileBertImpl(int64_t vocab) {
    embeddings =
        register_module("embeddings", std::make_shared<EmbeddingsImpl>(vocab));
    auto encoder = register_module("encoder", std::make_shared<nn::Module>());
    nn::ModuleList list;
    for (int64_t i = 0; i < S::kLayers; ++i) {
      auto l = std::make_shared<LayerImpl>();
      list->push_back(l);
      layers.push_back(l);
    }
    encoder->register_module("layer", list);
  }
  torch::Tensor forward(const torch::Tensor& tokens) {
    torch::Tensor h = embeddings->forward(tokens);
    for (const auto& l : layers) h = l->forward(h);
    return h;
  }
  std::shared_ptr<EmbeddingsImpl> embeddings;
  std::vector<std::shared_ptr<LayerImpl>> layers;
};

// "cls.predictions": transform (dense, LayerNorm), dense (the decoder's
// last 384 rows, stored as Linear(vocab -> 384).weight), bias.
class MobileBertMlmHeadImpl : public nn::Module {
 public:
  explicit MobileBertMlmHeadImpl(int64_t vocab) {
    auto transform = register_module("transform", std::make_shared<nn::Module>());
    transform_dense =
        transform->register_module("dense", Dense(S::kHidden, S::kHidden));
    transform_norm = transform->register_module(
        "LayerNorm",
        nn::LayerNorm(nn::LayerNormOptions({S::kHidden}).eps(1e-12)));
    dense = register_module(
        "dense", nn::Linear(nn::LinearOptions(vocab, S::kHidden - S::kEmbedding)
                                .bias(false)));
    bias = register_parameter("bias", torch::zeros({vocab}));
  }
  torch::Tensor forward(const torch::Tensor& h,
                        const torch::Tensor& word_embeddings) {
    torch::Tensor t =
        transform_norm->forward(torch::relu(transform_dense->forward(h)));
    torch::Tensor decoder =
        torch::cat({word_embeddings.t(), dense->weight}, 0);  // (512, vocab)
    AddMacs(t.numel() * decoder.size(1));  // 512 x vocab per token
    return torch::matmul(t, decoder) + bias;
  }
  MacLinear transform_dense{nullptr};
  nn::LayerNorm transform_norm{nullptr};
  nn::Linear dense{nullptr};
  torch::Tensor bias;
};

MobileBert::MobileBert(const ResolvedModel& shape)
    : Model(shape), vocab_(shape.vocab) {
  encoder_ = register_module("mobilebert",
                             std::make_shared<MobileBertImpl>(vocab_));
  cls_ = register_module("cls", std::make_shared<nn::Module>());
  head_ = cls_->register_module("predictions",
                                std::make_shared<MobileBertMlmHeadImpl>(vocab_));
  torch::NoGradGuard no_grad;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* l = m->as<nn::Linear>()) {
      l->weight.normal_(0, kInitStd);
      if (l->bias.defined()) l->bias.zero_();
    } else if (auto* e = m->as<nn::Embedding>()) {
      e->weight.normal_(0, kInitStd);
      if (e->options.padding_idx().has_value()) {
        e->weight[*e->options.padding_idx()].zero_();
      }
    }
  }
}

MobileBert::~MobileBert() = default;

torch::Tensor MobileBert::Logits(const torch::Tensor& tokens) {
  torch::Tensor h = encoder_->forward(tokens);
  return head_->forward(h, encoder_->embeddings->word_embeddings->weight);
}

torch::Tensor MobileBert::forward(torch::Tensor x) {
  return Logits(x.reshape({x.size(0), -1}).to(torch::kLong));
}

torch::Tensor MobileBert::Loss(const torch::Tensor& input,
                               const torch::Tensor& /*labels*/) {
  torch::Tensor tokens = input.reshape({input.size(0), -1}).to(torch::kLong);
  const int64_t n = tokens.size(0), len = tokens.size(1);
  const auto opts = tokens.options();
  torch::Tensor chosen =
      torch::rand({n, len}, torch::TensorOptions().device(tokens.device())) <
      S::kMaskProbability;
  // One position per sample always, so every sample has a target.
  chosen.scatter_(1, torch::randint(len, {n, 1}, opts), true);
  torch::Tensor how =
      torch::rand({n, len}, torch::TensorOptions().device(tokens.device()));
  torch::Tensor masked = tokens.masked_fill(chosen & (how < 0.8), S::kMaskToken);
  torch::Tensor random_tokens = torch::randint(vocab_, {n, len}, opts);
  masked = torch::where(chosen & (how >= 0.8) & (how < 0.9), random_tokens,
                        masked);
  torch::Tensor targets = tokens.masked_fill(~chosen, -100);
  torch::Tensor logits = Logits(masked);
  return torch::nn::functional::cross_entropy(
      logits.reshape({-1, vocab_}), targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
}

std::pair<torch::Tensor, torch::Tensor> MobileBert::SyntheticBatch(int64_t n) {
  const auto s = input_shape();
  return {torch::randint(vocab_, {n, s[0], s[1], s[2]}, torch::kFloat),
          torch::zeros({n}, torch::kLong)};
}

}  // namespace powersweep
