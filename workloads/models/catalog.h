// The models this workload binary can build, their study defaults, and the
// check of a model's options. Kept free of LibTorch so argument validation
// (run configs, sweep files) does not need it. Stateless and thread-safe.
//
// Names: alexnet, dqn, gpt2_small, inception_v3, lenet5, lstm_lm, memnet,
// mobilebert, mobilenetv3 (MobileNetV3-large; "mobilenet_v3_large" is an
// alias), resnet18, resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae,
// vgg11, vgg19. Study
// defaults (an option left 0) and smallest inputs:
//   lenet5         1x28x28,   10 classes (MNIST / Fashion-MNIST); 28 only
//   resnet18       3x32x32,   10 classes (CIFAR-10); >= 32
//   vgg11          3x32x32,   10 classes (CIFAR-10); >= 32
//   mobilenetv3    3x224x224, 2000 classes (GLD23k); >= 32
//   resnet50       3x224x224, 1000 classes (ImageNet); >= 32
//   alexnet        3x224x224, 1000 classes (ImageNet); >= 63
//   squeezenet1_1  3x224x224, 1000 classes (ImageNet); >= 17
//   vgg19          3x224x224, 1000 classes (ImageNet); >= 32
//   inception_v3   3x299x299, 1000 classes (ImageNet); >= 75, and >= 299
//                  to train (its auxiliary classifier)
//   vae            1x28x28,   784 inputs (MNIST / Fashion-MNIST; labels
//                  unused); 28 only
//   dqn            5x84x84 (4 stacked frames + the next frame), 3 actions
//                  (the frames data set; "classes" are the actions); 84 only
//   lstm_lm        1x1x36 token ids (seq_len 35 + 1), vocabulary 33,278
//   mobilebert     1x1x128 token ids (seq_len 128), vocabulary 30,522
//   seq2seq        1x1x30 token ids (seq_len 30), vocabulary 40,000
//   seq2seq_lstm   as seq2seq (its LSTM-cell variant)
//   memnet         1x1x408 token ids (51 sentences of seq_len 8 words: 50
//                  of memory, the question), vocabulary 23
//   gpt2_small     1x1x(seq_len + 1) token ids carried as floats,
//                  vocabulary 50,257 ("classes"), seq_len 128, gen_tokens 16
//
// The sequence models take a sample of token ids carried as floats, shape
// (1, 1, seq_len + extra); their "classes" are the vocabulary (num_classes
// == vocab), and they take --seq-len instead of --input-size. lstm_lm and
// mobilebert, seq2seq, seq2seq_lstm and memnet (common/text_models.h) take --vocab (default: the data set's)
// instead of --classes. gpt2_small's vocabulary is fixed; it takes
// --gen-tokens (tokens an inference minibatch generates after the prompt),
// with seq_len + gen_tokens <= its context of 1024.
//
// ResolveModelOptions errors are kInvalidArgument naming the option as the
// workload binary spells it: "--model" (unknown name, lists the known ones),
// "--classes" (fewer than 2; or given to a sequence model), "--input-size"
// (negative, below the network's minimum above (its training minimum when
// options.train), anything but 28 for lenet5 and vae or 84 for dqn; or
// given to a sequence model), "--seq-len" (below 1 or above the model's
// maximum; or given to an image model), "--vocab" (outside 4..2^24, other
// than 50257 for gpt2_small, or given to an image model), "--gen-tokens"
// (out of range, or given to a model other than gpt2_small).
#ifndef POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_
#define POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

// What a caller may choose about a model; 0 means the model's study default.
struct ModelOptions {
  int64_t num_classes = 0;
  int64_t input_size = 0;  // height = width of the square input image
  int64_t seq_len = 0;     // sequence models: tokens read per sample
  int64_t gen_tokens = 0;  // gpt2_small: tokens generated (inference)
  int64_t vocab = 0;       // text_models.h's models: vocabulary size
  // The model will be trained: heads that run in training only (Inception-
  // v3's auxiliary classifier) must fit the input too.
  bool train = false;
};

// A model with every option decided.
struct ResolvedModel {
  std::string name;  // canonical (an alias resolved)
  std::array<int64_t, 3> input_shape{};  // (channels, height, width)
  int64_t num_classes = 0;  // sequence models: == vocab
  int64_t seq_len = 0;      // 0 for image models
  int64_t vocab = 0;        // 0 for image models
  int64_t gen_tokens = 0;   // gpt2_small only
  bool takes_tokens() const { return seq_len > 0; }
};

// Canonical names MakeModel accepts, sorted (aliases not included).
std::vector<std::string> KnownModels();

// The canonical name of `name` (itself, or the model an alias stands for);
// empty if it names no model.
std::string CanonicalModelName(absl::string_view name);

// The side image folders are decoded to for `name` when --input-size is 0:
// 224, or the model's study default when that is larger (299 for
// inception_v3).
int64_t ImageFolderInputSize(absl::string_view name);

absl::StatusOr<ResolvedModel> ResolveModelOptions(absl::string_view name,
                                                  const ModelOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_CATALOG_H_
