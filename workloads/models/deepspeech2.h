// DeepSpeech2: the Deep Speech 2 network shape (Amodei et al., "Deep
// Speech 2: End-to-End Speech Recognition in English and Mandarin", 2016)
// scaled for edge boards, with the CTC loss over characters.
//
// On a sample (1, frames + 1, 80) of the speech layout
// (workloads/data/speech_format.h: a normalised log-mel spectrogram of
// `frames` 10 ms frames x 80 bands, then the transcript row):
//   conv1  1 -> 32, 11x41 (time x frequency), stride 2x2, padding 5x20,
//          BatchNorm2d, Hardtanh(0, 20)      -> 32 x ceil(T/2) x 40
//   conv2  32 -> 32, 11x21, stride 1x2, padding 5x10, BatchNorm2d,
//          Hardtanh(0, 20)                   -> 32 x ceil(T/2) x 20
//   rnn    GRU(640 -> 256, 3 layers, bidirectional, batch_first): each
//          layer's input is the previous layer's two directions
//          concatenated (512)
//   fc     Linear(512 -> 29)                 (logits over the alphabet)
// 4,010,813 parameters; 1.41 G forward MACs at 256 frames (convolutions,
// GRU gate products 3 x H x (I + H) per output frame, direction and layer,
// and fc). The paper's model is 2-3 such convolutions, 7 recurrent layers
// of 1,760-2,560 units and 161 linear-spectrogram bins; this one keeps its
// shape (2-D convolutions striding time by 2, bidirectional GRUs, a fully
// connected layer, CTC) at a size an Orin Nano trains. The paper's
// sequence-wise batch normalisation between recurrent layers is left out,
// and the GRUs run over the whole padded window (no packing): padding
// frames are zeros and CTC reads only the valid frames. Parameter names are
// torch.nn's: conv1.weight, bn1.running_mean, rnn.weight_ih_l0_reverse,
// fc.bias, ... PyTorch's default initialisation.
//
// forward(x) returns the logits (N, ceil(frames / 2), 29) of the first
// `frames` rows (the transcript row is not audio). Loss(x, labels) is
// torch's CTC loss (blank 0, mean over the batch of each utterance's loss
// divided by its transcript length, infinite losses zeroed) of the log-
// softmax over ceil(valid / 2) output frames against the transcript, both
// read from the transcript row; labels are not used. In eval mode Loss also
// decodes greedily (per output frame the most likely class; repeats merged,
// blanks dropped) -- the inference task's work -- and keeps the texts for
// LastTranscripts(). Trained with Adam, lr 5e-4 (own_optimizer.h).
// Not thread-safe (a torch module).
#ifndef POWERSWEEP_WORKLOADS_MODELS_DEEPSPEECH2_H_
#define POWERSWEEP_WORKLOADS_MODELS_DEEPSPEECH2_H_

#include <string>
#include <utility>
#include <vector>

#include "workloads/models/counted_layers.h"
#include "workloads/models/model.h"
#include "workloads/models/own_optimizer.h"

namespace powersweep {

class DeepSpeech2 : public Model, public OwnOptimizer {
 public:
  static constexpr int64_t kChannels = 32;
  static constexpr int64_t kHidden = 256;
  static constexpr int64_t kLayers = 3;
  static constexpr double kLearningRate = 5e-4;

  // `shape` is (1, frames + 1, 80) with 29 classes (MakeModel checks it).
  explicit DeepSpeech2(const ResolvedModel& shape);
  torch::Tensor forward(torch::Tensor x) override;
  torch::Tensor Loss(const torch::Tensor& input,
                     const torch::Tensor& labels) override;
  // Standard-normal spectrograms over the whole window and random
  // transcripts of 1..min(78, frames / 8) characters.
  std::pair<torch::Tensor, torch::Tensor> SyntheticBatch(int64_t n) override;
  std::unique_ptr<torch::optim::Optimizer> MakeOptimizer() override;

  // Greedy CTC decode of logits (N, T', 29) over the first
  // output_lengths[i] frames of each utterance.
  static std::vector<std::string> GreedyDecode(
      const torch::Tensor& logits, const torch::Tensor& output_lengths);
  // The texts the last eval-mode Loss decoded.
  const std::vector<std::string>& LastTranscripts() const {
    return last_transcripts_;
  }

 private:
  int64_t frames_;
  MacConv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  MacConv2d conv2_{nullptr};
  torch::nn::BatchNorm2d bn2_{nullptr};
  torch::nn::GRU rnn_{nullptr};
  MacLinear fc_{nullptr};
  std::vector<std::string> last_transcripts_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_DEEPSPEECH2_H_
