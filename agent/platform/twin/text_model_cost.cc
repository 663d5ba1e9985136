// lstm_lm, mobilebert, seq2seq, seq2seq_lstm and memnet costed per sample
// of seq_len tokens, as workloads/models/{lstm_lm,mobilebert,seq2seq,
// memnet}.h build them. For these models ModelInput is {1, seq_len,
// vocab}: channels 1, size = tokens read per sample (memnet: words per
// sentence, of its 50 memory sentences and the question), classes =
// vocabulary. Like every
// twin figure these are simulated: the MACs and parameters follow the
// networks exactly, the kernel counts are estimates of LibTorch's eager
// launches (the layer lists below).
//
// MACs follow `powersweep-workload describe`: Linear layers, the LSTM gates'
// two matrix products (4 x hidden x (input + hidden) per token and layer),
// attention's QK^T and PV (2 x seq_len x 128 per token and layer) and the
// masked-LM decoder (512 x vocab per token); embedding lookups are free.
// Activations: every op's output values per sample. Forward kernels, as
// LibTorch's eager mode launches them on a GPU (estimates, the layer lists
// below): one per Linear, elementwise op, softmax and matrix product; the
// cuDNN LSTM one input-projection GEMM per layer plus, per time step, a
// recurrent GEMM and a fused gate kernel. The per-minibatch totals follow
// ModelWalker::Finish (model_cost.h).
#include <string>

#include "agent/platform/twin/model_architectures.h"

namespace powersweep {
namespace {

// Sums a sequence model's ops for one sample of `tokens` tokens.
class TokenTally {
 public:
  TokenTally(std::string name, const ModelInput& input) : tokens_(input.size) {
    c_.name = std::move(name);
    c_.input = input;
    c_.input_values = input.size;
  }
  // A Linear applied to every token (bias when `bias`).
  void Linear(double in, double out, bool bias = true) {
    c_.forward_macs += tokens_ * in * out;
    Params(in * out + (bias ? out : 0), bias ? 2 : 1);
    Op(tokens_ * out);
  }
  void Params(double values, int tensors) {
    c_.params += values;
    c_.param_tensors += tensors;
  }
  // An op writing `values` per sample, in `kernels` launches.
  void Op(double values, int kernels = 1) {
    c_.activations += values;
    c_.forward_kernels += kernels;
  }
  void Macs(double macs) { c_.forward_macs += macs; }
  void InputValues(double values) { c_.input_values = values; }
  double tokens() const { return tokens_; }
  ModelCost Finish() const {
    ModelCost c = c_;
    c.infer_kernels = c.forward_kernels + 1;
    c.train_kernels =
        c.forward_kernels + 2 + 2 * c.forward_kernels + 3 * c.param_tensors;
    return c;
  }

 private:
  double tokens_;
  ModelCost c_;
};

}  // namespace

ModelCost LstmLmCost(const ModelInput& input) {
  constexpr double kEmb = 200, kHidden = 200;
  constexpr int kLayers = 2;
  const double vocab = input.classes;
  TokenTally t("lstm_lm", input);
  const double n = t.tokens();
  t.Params(vocab * kEmb, 1);  // encoder
  t.Op(n * kEmb);             // embedding lookup
  t.Op(n * kEmb);             // dropout
  for (int layer = 0; layer < kLayers; ++layer) {
    const double in = layer == 0 ? kEmb : kHidden;
    t.Params(4 * kHidden * (in + kHidden) + 8 * kHidden, 4);
    t.Macs(n * 4 * kHidden * (in + kHidden));
    // Input projection, then per step the recurrent GEMM and the gates.
    t.Op(n * 4 * kHidden + n * 6 * kHidden, 1 + 2 * input.size);
  }
  t.Op(n * kHidden);  // dropout
  t.Linear(kHidden, vocab);  // decoder
  return t.Finish();
}

ModelCost MobileBertCost(const ModelInput& input) {
  constexpr double kEmb = 128, kHidden = 512, kNeck = 128, kInter = 512;
  constexpr int kLayers = 24, kStackedFfns = 3;
  const double vocab = input.classes, len = input.size;
  TokenTally t("mobilebert", input);
  const double n = t.tokens();
  auto no_norm = [&](double width) {
    t.Params(2 * width, 2);
    t.Op(n * width, 2);  // x * w + b
  };
  // Embeddings: word (vocab x 128), trigram concat, transformation,
  // position and token type (added), NoNorm.
  t.Params(vocab * kEmb + 512 * kHidden + 2 * kHidden, 3);
  t.Op(n * kEmb);                 // word lookup
  t.Op(n * 3 * kEmb, 3);          // two pads and the concat
  t.Linear(3 * kEmb, kHidden);
  t.Op(2 * n * kHidden, 4);       // two lookups, two adds
  no_norm(kHidden);
  for (int layer = 0; layer < kLayers; ++layer) {
    t.Linear(kHidden, kNeck);  // bottleneck input
    no_norm(kNeck);
    t.Linear(kHidden, kNeck);  // shared query/key bottleneck
    no_norm(kNeck);
    t.Linear(kNeck, kNeck);    // query
    t.Linear(kNeck, kNeck);    // key
    t.Linear(kHidden, kNeck);  // value
    t.Macs(2 * len * len * kNeck);
    t.Op(2 * 4 * len * len, 2);  // scores, scaled
    t.Op(4 * len * len, 2);      // softmax, dropout
    t.Op(n * kNeck, 2);          // context, heads merged
    t.Linear(kNeck, kNeck);      // attention output
    t.Op(n * kNeck);             // residual
    no_norm(kNeck);
    for (int f = 0; f < kStackedFfns + 1; ++f) {
      t.Linear(kNeck, kInter);
      t.Op(n * kInter);  // ReLU
      t.Linear(kInter, kNeck);
      t.Op(n * kNeck);   // residual
      no_norm(kNeck);
    }
    t.Linear(kNeck, kHidden);  // output bottleneck
    t.Op(n * kHidden);         // residual
    no_norm(kHidden);
  }
  // Masked-LM head: transform, ReLU, LayerNorm, decoder (tied word
  // embeddings + its own 384 x vocab) and bias.
  t.Linear(kHidden, kHidden);
  t.Op(n * kHidden);
  t.Params(2 * kHidden, 2);
  t.Op(n * kHidden);
  t.Params((kHidden - kEmb) * vocab + vocab, 2);
  t.Op(kHidden * vocab);  // the decoder matrix, concatenated
  t.Macs(n * kHidden * vocab);
  t.Op(n * vocab, 2);     // logits, bias
  return t.Finish();
}

namespace {

// seq2seq and seq2seq_lstm (workloads/models/seq2seq.h): GRU (3 gates) or
// LSTM (4 gates) encoder and decoder (2 layers, embedding 256, hidden 512),
// Luong "general" attention, generator; trained teacher-forced with Adam,
// inference decodes greedily one token per step.
ModelCost EncoderDecoderCost(const ModelInput& input, const char* name,
                             int gates) {
  constexpr double kEmb = 256, kHidden = 512;
  constexpr int kLayers = 2;
  // Adam's kernels per parameter tensor beyond SGD with momentum's two
  // (as fathom_cost.cc: two moments and a root, 8).
  constexpr int kAdamExtraKernels = 6;
  const double vocab = input.classes, len = input.size;
  TokenTally t(name, input);
  const double n = t.tokens();
  // Per token and layer, the gates' elementwise work beyond the input
  // projection: the GRU's 4 x hidden, the LSTM's 6 x hidden (as lstm_lm).
  const double gate_ops = gates == 3 ? 4 * kHidden : 6 * kHidden;
  double decoder_params = 0;
  for (int side = 0; side < 2; ++side) {  // encoder, decoder
    t.Params(vocab * kEmb, 1);
    t.Op(n * kEmb);  // embedding lookup
    for (int layer = 0; layer < kLayers; ++layer) {
      const double in = layer == 0 ? kEmb : kHidden;
      // Weights and torch's two biases (b_ih, b_hh) per gate.
      const double p =
          gates * kHidden * (in + kHidden) + 2 * gates * kHidden;
      t.Params(p, 4);
      if (side == 1) decoder_params += p;
      t.Macs(n * gates * kHidden * (in + kHidden));
      // Input projection, then per step the recurrent GEMM and the gates.
      t.Op(n * gates * kHidden + n * gate_ops, 1 + 2 * input.size);
    }
  }
  t.Op(n, 2);                            // decoder input: <eos>, shift, cat
  t.Linear(kHidden, kHidden, false);     // attention keys W_a s_j
  t.Macs(2 * len * len * kHidden);       // scores, context
  t.Op(2 * len * len + n * kHidden, 3);  // scores, softmax, context
  t.Op(n * 2 * kHidden);                 // cat [c; h]
  t.Linear(2 * kHidden, kHidden, false);  // attention_combine
  t.Op(n * kHidden);                     // tanh
  t.Linear(kHidden, vocab);              // generator
  ModelCost c = t.Finish();
  c.train_kernels += kAdamExtraKernels * c.param_tensors;
  // Greedy decoding: the encoder's kernels once, then per step the
  // embedding, per layer three (input GEMM, recurrent GEMM, gates), the
  // attention's six (scores, softmax, context, cat, combine, tanh), the
  // generator and the argmax, and the logits' cat and the loss at the end.
  const int encoder_kernels = 1 + kLayers * (1 + 2 * input.size) + 1;
  c.infer_kernels =
      encoder_kernels + input.size * (1 + 3 * kLayers + 6 + 2) + 2;
  // Each step reads the decoder's weights again.
  decoder_params += kHidden * kHidden * 3 + kHidden * vocab + vocab;
  c.infer_weight_reads = 1 + (len - 1) * decoder_params / c.params;
  return c;
}

}  // namespace

ModelCost Seq2SeqCost(const ModelInput& input) {
  return EncoderDecoderCost(input, "seq2seq", 3);
}

ModelCost Seq2SeqLstmCost(const ModelInput& input) {
  return EncoderDecoderCost(input, "seq2seq_lstm", 4);
}

// memnet (workloads/models/memnet.h): MemN2N, d = 20, 50 memory slots, 3
// hops, adjacent tying (4 word and 4 temporal embeddings), position
// encoding; SGD.
ModelCost MemNetCost(const ModelInput& input) {
  constexpr double kEmb = 20, kMemory = 50;
  constexpr int kHops = 3;
  const double vocab = input.classes, words = input.size;
  TokenTally t("memnet", input);
  t.InputValues((kMemory + 1) * words);
  t.Params(4 * vocab * kEmb + 4 * kMemory * kEmb, 8);
  t.Op(2 * (kMemory + 1) * words, 2);  // ids to long, the <pad> mask
  // The question through A^1 and the story through A^1, C^1..C^3: lookup,
  // position weights, mask, sum over the words; temporal rows added.
  t.Op(3 * words * kEmb + kEmb, 4);
  for (int e = 0; e <= kHops; ++e) {
    t.Op(3 * kMemory * words * kEmb + kMemory * kEmb, 4);
    t.Op(2 * kMemory * kEmb, 2);  // temporal lookup, add
  }
  for (int hop = 0; hop < kHops; ++hop) {
    t.Macs(2 * kMemory * kEmb);
    t.Op(2 * kMemory + 2 * kEmb, 4);  // scores, softmax, weighted sum, add
  }
  t.Macs(kEmb * vocab);  // the answer layer, u C^3^T
  t.Op(vocab);
  return t.Finish();
}

}  // namespace powersweep
