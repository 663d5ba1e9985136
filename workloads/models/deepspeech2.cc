#include "workloads/models/deepspeech2.h"

#include <algorithm>

#include "workloads/data/speech_format.h"

namespace powersweep {
namespace {

// Output frames of conv1's 2x time stride for `frames` input frames.
torch::Tensor StridedLengths(const torch::Tensor& frames) {
  return (frames + 1).div(2, "floor");
}

}  // namespace

DeepSpeech2::DeepSpeech2(const ResolvedModel& shape)
    : Model(shape), frames_(shape.seq_len) {
  namespace nn = torch::nn;
  const int64_t bands = shape.input_shape[2];
  conv1_ = register_module(
      "conv1", MacConv2d(nn::Conv2dOptions(1, kChannels, {11, 41})
                             .stride({2, 2})
                             .padding({5, 20})));
  bn1_ = register_module("bn1", nn::BatchNorm2d(kChannels));
  conv2_ = register_module(
      "conv2", MacConv2d(nn::Conv2dOptions(kChannels, kChannels, {11, 21})
                             .stride({1, 2})
                             .padding({5, 10})));
  bn2_ = register_module("bn2", nn::BatchNorm2d(kChannels));
  const int64_t f1 = (bands + 2 * 20 - 41) / 2 + 1;
  const int64_t f2 = (f1 + 2 * 10 - 21) / 2 + 1;
  rnn_ = register_module(
      "rnn", nn::GRU(nn::GRUOptions(kChannels * f2, kHidden)
                         .num_layers(kLayers)
                         .bidirectional(true)
                         .batch_first(true)));
  fc_ = register_module("fc", MacLinear(2 * kHidden, shape.num_classes));
}

torch::Tensor DeepSpeech2::forward(torch::Tensor x) {
  const int64_t n = x.size(0);
  torch::Tensor h = x.narrow(2, 0, frames_);  // (N, 1, T, F)
  h = torch::hardtanh(bn1_->forward(conv1_->forward(h)), 0, 20);
  h = torch::hardtanh(bn2_->forward(conv2_->forward(h)), 0, 20);
  // (N, C, T', F') -> (N, T', C * F'), channel-major features per frame.
  const int64_t t = h.size(2);
  h = h.permute({0, 2, 1, 3}).reshape({n, t, -1});
  const int64_t input = h.size(2);
  h = std::get<0>(rnn_->forward(h));
  int64_t gru_macs = 0;
  for (int64_t layer = 0; layer < kLayers; ++layer) {
    const int64_t in = layer == 0 ? input : 2 * kHidden;
    gru_macs += 2 * 3 * kHidden * (in + kHidden);
  }
  AddMacs(n * t * gru_macs);
  return fc_->forward(h);
}

torch::Tensor DeepSpeech2::Loss(const torch::Tensor& input,
                                const torch::Tensor& /*labels*/) {
  const torch::Tensor logits = forward(input);  // (N, T', C)
  const torch::Tensor row = input.select(1, 0).select(1, frames_);  // (N, F)
  const torch::Tensor valid = row.select(1, 0).to(torch::kLong);
  const torch::Tensor chars = row.select(1, 1).to(torch::kLong);
  const int64_t max_chars =
      std::max<int64_t>(1, chars.max().item<int64_t>());
  const torch::Tensor targets = row.narrow(1, 2, max_chars).to(torch::kLong);
  const torch::Tensor out_lengths =
      StridedLengths(valid).clamp(1, logits.size(1));
  const torch::Tensor log_probs =
      torch::log_softmax(logits, 2).transpose(0, 1);  // (T', N, C)
  torch::Tensor loss = torch::nn::functional::ctc_loss(
      log_probs, targets, out_lengths, chars,
      torch::nn::functional::CTCLossFuncOptions().blank(0).zero_infinity(
          true));
  if (!is_training()) last_transcripts_ = GreedyDecode(logits, out_lengths);
  return loss;
}

std::vector<std::string> DeepSpeech2::GreedyDecode(
    const torch::Tensor& logits, const torch::Tensor& output_lengths) {
  const torch::Tensor best = logits.argmax(2).to(torch::kCPU).contiguous();
  const torch::Tensor lengths =
      output_lengths.to(torch::kCPU).to(torch::kLong).contiguous();
  const int64_t n = best.size(0);
  const int64_t t = best.size(1);
  const int64_t* b = best.data_ptr<int64_t>();
  const int64_t* len = lengths.data_ptr<int64_t>();
  std::vector<std::string> out(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t previous = 0;
    const int64_t frames = std::min(len[i], t);
    for (int64_t f = 0; f < frames; ++f) {
      const int64_t c = b[i * t + f];
      if (c != 0 && c != previous) {
        out[i].push_back(IdCharacter(static_cast<int>(c)));
      }
      previous = c;
    }
  }
  return out;
}

std::pair<torch::Tensor, torch::Tensor> DeepSpeech2::SyntheticBatch(
    int64_t n) {
  const auto s = input_shape();
  const int64_t bands = s[2];
  torch::Tensor x = torch::randn({n, 1, frames_ + 1, bands});
  const int64_t most = std::max<int64_t>(
      1, std::min<int64_t>(kMaxTranscriptChars, frames_ / 8));
  const torch::Tensor lengths = torch::randint(1, most + 1, {n}, torch::kLong);
  const torch::Tensor ids =
      torch::randint(1, kSpeechClasses, {n, kMaxTranscriptChars}, torch::kLong);
  torch::Tensor row = torch::zeros({n, bands});
  row.select(1, 0).fill_(static_cast<double>(frames_));
  row.select(1, 1).copy_(lengths);
  const torch::Tensor positions =
      torch::arange(kMaxTranscriptChars, torch::kLong).unsqueeze(0);
  row.narrow(1, 2, kMaxTranscriptChars)
      .copy_(ids.masked_fill(positions >= lengths.unsqueeze(1), 0));
  x.select(1, 0).select(1, frames_).copy_(row);
  return {x, torch::zeros({n}, torch::kLong)};
}

std::unique_ptr<torch::optim::Optimizer> DeepSpeech2::MakeOptimizer() {
  return std::make_unique<torch::optim::Adam>(
      parameters(), torch::optim::AdamOptions(kLearningRate));
}

}  // namespace powersweep
