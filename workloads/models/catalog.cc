#include "workloads/models/catalog.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/image_models.h"
#include "common/model_names.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {
namespace {

struct Spec {
  const char* name;
  int64_t default_classes;
  bool tokens;  // a sequence model: common/text_models.h, or gpt2_small
};

// Sorted by name. The image models' input sizes are in
// common/image_models.h (shared with the controller and the twin); the
// sequence models' rows hold no image sizes (tokens = true): lstm_lm,
// memnet, mobilebert, seq2seq and seq2seq_lstm (limits in common/text_models.h,
// vocabulary from the data set) and gpt2_small (the limits below, its
// vocabulary fixed). The speech model's row holds no sizes either
// (common/speech_models.h).
constexpr Spec kSpecs[] = {
    {"alexnet", 1000, false},     {"deepspeech2", 29, false},
    {"dqn", 3, false},
    {"gpt2_small", 50257, true},  {"inception_v3", 1000, false},
    {"lenet5", 10, false},        {"lstm_lm", 0, true},
    {"memnet", 0, true},          {"mobilebert", 0, true},
    {"mobilenetv3", 2000, false}, {"resnet18", 10, false},
    {"resnet50", 1000, false},    {"seq2seq", 0, true},
    {"seq2seq_lstm", 0, true},
    {"squeezenet1_1", 1000, false}, {"vae", 10, false},
    {"vgg11", 10, false},         {"vgg19", 1000, false},
};

// gpt2_small: GPT-2's context of 1024 positions holds the prompt (seq_len)
// and the generated tokens; the defaults keep a CPU minibatch short.
constexpr int64_t kGpt2Context = 1024;
constexpr int64_t kGpt2DefaultSeqLen = 128;
constexpr int64_t kGpt2DefaultGenTokens = 16;
static_assert(NamesAreModelNames(kSpecs),
              "a spec for every name of common/model_names.h");

const Spec* FindSpec(absl::string_view name) {
  const std::string canonical = CanonicalModelName(name);
  for (const Spec& s : kSpecs) {
    if (canonical == s.name) return &s;
  }
  return nullptr;
}

constexpr bool TokenRowsAreTextModels() {
  for (const Spec& s : kSpecs) {
    if (s.tokens != IsSequenceModel(s.name)) return false;
  }
  return true;
}
static_assert(TokenRowsAreTextModels(),
              "the sequence models: common/text_models.h and gpt2_small");

constexpr bool OtherRowsAreImageModels() {
  for (const Spec& s : kSpecs) {
    if (!s.tokens && FindImageModel(s.name) == nullptr &&
        FindSpeechModel(s.name) == nullptr) {
      return false;
    }
  }
  return true;
}
static_assert(OtherRowsAreImageModels(),
              "every model but the sequence and speech models in "
              "common/image_models.h");

absl::StatusOr<ResolvedModel> ResolveTextModel(const Spec& spec,
                                               const ModelOptions& options) {
  const TextModelLimits& t = *FindTextModel(spec.name);
  if (options.input_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", spec.name, " takes token sequences, not images; "
        "use --seq-len"));
  }
  ResolvedModel r;
  r.name = spec.name;
  r.seq_len = options.seq_len == 0 ? t.default_seq_len : options.seq_len;
  if (r.seq_len < kMinTextSeqLen || r.seq_len > t.max_seq_len) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seq-len: ", options.seq_len, " does not fit ", spec.name,
        " (1 to ", t.max_seq_len, " tokens; 0 means the default of ",
        t.default_seq_len, ")"));
  }
  r.vocab = options.vocab == 0 ? t.default_vocab : options.vocab;
  if (r.vocab < kMinTextVocab || r.vocab > kMaxTextVocab) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--vocab: ", options.vocab, " does not fit ", spec.name, " (",
        kMinTextVocab, " to ", kMaxTextVocab,
        " tokens: the 4 special tokens at least, and ids exact in a float; "
        "0 means the default of ", t.default_vocab, ")"));
  }
  if (options.num_classes != 0 && options.num_classes != r.vocab) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--classes: ", spec.name, " predicts tokens: its classes are the ",
        r.vocab, " of the vocabulary; use --vocab"));
  }
  r.num_classes = r.vocab;
  r.input_shape = {1, 1, t.SampleTokens(r.seq_len)};
  return r;
}

}  // namespace

int64_t ImageFolderInputSize(absl::string_view name) {
  const ImageModelInput* image = FindImageModel(CanonicalModelName(name));
  return image != nullptr && image->default_size > 224 ? image->default_size
                                                       : 224;
}

std::vector<std::string> KnownModels() {
  return std::vector<std::string>(kModelNames.begin(), kModelNames.end());
}

std::string CanonicalModelName(absl::string_view name) {
  if (name == "mobilenet_v3_large") return "mobilenetv3";
  for (const Spec& s : kSpecs) {
    if (name == s.name) return s.name;
  }
  return "";
}

namespace {

absl::StatusOr<ResolvedModel> ResolveSequenceModel(
    const Spec& spec, const ModelOptions& options) {
  if (options.input_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", spec.name,
        " takes token sequences, not images; use --seq-len"));
  }
  if (options.num_classes != 0 && options.num_classes != spec.default_classes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--classes: ", spec.name, "'s vocabulary is fixed at ",
        spec.default_classes, " tokens, got ", options.num_classes));
  }
  if (options.vocab != 0 && options.vocab != spec.default_classes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--vocab: ", spec.name, "'s vocabulary is fixed at ",
        spec.default_classes, " tokens, got ", options.vocab));
  }
  ResolvedModel r;
  r.name = spec.name;
  r.num_classes = spec.default_classes;
  r.vocab = spec.default_classes;
  r.seq_len = options.seq_len == 0 ? kGpt2DefaultSeqLen : options.seq_len;
  r.gen_tokens =
      options.gen_tokens == 0 ? kGpt2DefaultGenTokens : options.gen_tokens;
  if (r.seq_len < 1 || r.seq_len >= kGpt2Context) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seq-len: ", options.seq_len, " is outside 1..", kGpt2Context - 1,
        " for ", spec.name, " (0 means the default of ", kGpt2DefaultSeqLen,
        ")"));
  }
  if (r.gen_tokens < 1 || r.seq_len + r.gen_tokens > kGpt2Context) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--gen-tokens: ", r.gen_tokens, " with --seq-len ", r.seq_len,
        " does not fit ", spec.name, "'s context of ", kGpt2Context,
        " positions (at least 1, and seq_len + gen_tokens <= ", kGpt2Context,
        "; 0 means the default of ", kGpt2DefaultGenTokens, ")"));
  }
  r.input_shape = {1, 1, r.seq_len + 1};
  return r;
}

// deepspeech2: --seq-len is the spectrogram's frames, the mel bands and
// the alphabet are fixed.
absl::StatusOr<ResolvedModel> ResolveSpeechModel(const Spec& spec,
                                                 const ModelOptions& options) {
  const SpeechModelLimits& s = *FindSpeechModel(spec.name);
  if (options.input_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-size: ", spec.name, " takes log-mel spectrograms of ",
        s.mel_bands, " bands, not images; use --seq-len for the frames"));
  }
  if (options.vocab != 0 || options.gen_tokens != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.vocab != 0 ? "--vocab: " : "--gen-tokens: ", spec.name,
        " takes spectrograms, not token sequences (its alphabet is fixed at ",
        s.alphabet, " characters with the CTC blank)"));
  }
  if (options.num_classes != 0 && options.num_classes != s.alphabet) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--classes: ", spec.name, "'s alphabet is fixed at ", s.alphabet,
        " classes (the CTC blank, space, apostrophe, a-z), got ",
        options.num_classes));
  }
  ResolvedModel r;
  r.name = spec.name;
  r.num_classes = s.alphabet;
  r.seq_len = options.seq_len == 0 ? s.default_frames : options.seq_len;
  if (r.seq_len < s.min_frames || r.seq_len > s.max_frames) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--seq-len: ", options.seq_len, " spectrogram frames do not fit ",
        spec.name, " (", s.min_frames, " to ", s.max_frames,
        " frames of 10 ms; 0 means the default of ", s.default_frames, ")"));
  }
  r.input_shape = {1, r.seq_len + 1, s.mel_bands};
  return r;
}

}  // namespace

absl::StatusOr<ResolvedModel> ResolveModelOptions(absl::string_view name,
                                                  const ModelOptions& options) {
  const Spec* spec = FindSpec(name);
  if (spec == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--model: unknown model '", name, "' (known: ",
                     absl::StrJoin(KnownModels(), ", "), ")"));
  }
  if (FindSpeechModel(spec->name) != nullptr) {
    return ResolveSpeechModel(*spec, options);
  }
  if (spec->tokens) {
    if (FindTextModel(spec->name) == nullptr) {
      return ResolveSequenceModel(*spec, options);  // gpt2_small
    }
    if (options.gen_tokens != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--gen-tokens: ", spec->name,
          " does not generate tokens (gpt2_small does)"));
    }
    return ResolveTextModel(*spec, options);
  }
  if (options.seq_len != 0 || options.vocab != 0 || options.gen_tokens != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.seq_len != 0 ? "--seq-len: "
        : options.vocab != 0 ? "--vocab: "
                             : "--gen-tokens: ",
        spec->name,
        " takes images, not token sequences"));
  }
  ResolvedModel r;
  r.name = spec->name;
  r.num_classes =
      options.num_classes == 0 ? spec->default_classes : options.num_classes;
  if (r.num_classes < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--classes: ", options.num_classes, " is too few for ", r.name,
        " (at least 2; 0 means the default of ", spec->default_classes, ")"));
  }
  const ImageModelInput& image = *FindImageModel(spec->name);
  const std::string problem =
      ImageSizeProblem(image, options.input_size, options.train);
  if (!problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input-size: ", problem));
  }
  const int64_t size =
      options.input_size == 0 ? image.default_size : options.input_size;
  r.input_shape = {image.channels, size, size};
  return r;
}

}  // namespace powersweep
