#include "agent/platform/twin/model_cost.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/twin/model_architectures.h"
#include "common/image_models.h"
#include "common/model_names.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {
namespace {

struct KnownModel {
  const char* name;
  ModelInput default_input;
  ModelCost (*walk)(const ModelInput&);
};

// Sorted by name. The image models take the sizes of
// common/image_models.h (at least their training size: the cost walks the
// training graph, Inception-v3's auxiliary classifier included); sequence
// models check their own token limits (common/text_models.h) instead.
constexpr KnownModel kModels[] = {
    {"alexnet", {3, 224, 1000}, AlexNetCost},
    {"deepspeech2", {1, 256, 29}, DeepSpeech2Cost},
    {"dqn", {5, 84, 3}, DqnCost},
    {"gpt2_small", {1, 128, 50257}, Gpt2SmallCost},
    {"inception_v3", {3, 299, 1000}, InceptionV3Cost},
    {"lenet5", {1, 28, 10}, LeNet5Cost},
    {"lstm_lm", {1, 35, 33278}, LstmLmCost},
    {"memnet", {1, 8, 23}, MemNetCost},
    {"mobilebert", {1, 128, 30522}, MobileBertCost},
    {"mobilenetv3", {3, 224, 2000}, MobileNetV3LargeCost},
    {"resnet18", {3, 32, 10}, ResNet18Cost},
    {"resnet50", {3, 224, 1000}, ResNet50Cost},
    {"seq2seq", {1, 30, 40000}, Seq2SeqCost},
    {"seq2seq_lstm", {1, 30, 40000}, Seq2SeqLstmCost},
    {"squeezenet1_1", {3, 224, 1000}, SqueezeNet11Cost},
    {"vae", {1, 28, 10}, VaeCost},
    {"vgg11", {3, 32, 10}, Vgg11Cost},
    {"vgg19", {3, 224, 1000}, Vgg19Cost},
};
static_assert(NamesAreModelNames(kModels),
              "a twin cost model for every name of common/model_names.h");

const KnownModel* Find(const std::string& model) {
  for (const KnownModel& m : kModels) {
    if (model == m.name) return &m;
  }
  return nullptr;
}

absl::Status Unknown(const std::string& model) {
  return absl::NotFoundError(
      absl::StrCat("model \"", model, "\" has no twin cost model (known: ",
                   absl::StrJoin(TwinModelNames(), ", "), ")"));
}

std::string ShapeText(const ModelInput& in) {
  return absl::StrCat(in.channels, "x", in.size, "x", in.size, " with ",
                      in.classes, " classes");
}

// The input `model` takes, as text.
std::string InputText(const std::string& model) {
  if (const SpeechModelLimits* s = FindSpeechModel(model)) {
    return absl::StrCat("1 x ", s->min_frames, "..", s->max_frames,
                        " spectrogram frames of ", s->mel_bands,
                        " mel bands with ", s->alphabet, " classes");
  }
  if (model == "gpt2_small") {
    return "1 x seq_len token ids (seq_len 1..1023) with 50257 classes";
  }
  const ImageModelInput* image = FindImageModel(model);
  if (image == nullptr) return "";
  if (image->fixed_size) {
    return absl::StrCat(image->channels, "x", image->default_size, "x",
                        image->default_size);
  }
  return absl::StrCat(image->channels, "xSxS with S >= ",
                      image->min_train_size);
}

bool Takes(const std::string& model, const ModelInput& in) {
  if (in.classes < 1) return false;
  if (const SpeechModelLimits* s = FindSpeechModel(model)) {
    return in.channels == 1 && in.size >= s->min_frames &&
           in.size <= s->max_frames && in.classes == s->alphabet;
  }
  if (model == "gpt2_small") {
    return in.channels == 1 && in.size >= 1 && in.size < 1024 &&
           in.classes == 50257;
  }
  const ImageModelInput* image = FindImageModel(model);
  return image != nullptr && in.size > 0 && in.channels == image->channels &&
         ImageSizeProblem(*image, in.size, /*train=*/true).empty();
}

}  // namespace

std::vector<std::string> TwinModelNames() {
  std::vector<std::string> names;
  for (const KnownModel& m : kModels) names.push_back(m.name);
  return names;
}

absl::StatusOr<ModelInput> DefaultModelInput(const std::string& model) {
  const KnownModel* m = Find(model);
  if (m == nullptr) return Unknown(model);
  return m->default_input;
}

absl::StatusOr<ModelCost> ModelCostFor(const std::string& model) {
  const KnownModel* m = Find(model);
  if (m == nullptr) return Unknown(model);
  return m->walk(m->default_input);
}

absl::StatusOr<ModelCost> ModelCostFor(const std::string& model,
                                       const ModelInput& input) {
  const KnownModel* m = Find(model);
  if (m == nullptr) return Unknown(model);
  if (const TextModelLimits* t = FindTextModel(model)) {
    if (input.channels != 1 || input.size < kMinTextSeqLen ||
        input.size > t->max_seq_len || input.classes < kMinTextVocab ||
        input.classes > kMaxTextVocab) {
      return absl::InvalidArgumentError(absl::StrCat(
          "model ", model, " cannot take ", input.channels, " x ", input.size,
          " tokens with a vocabulary of ", input.classes, " (it takes 1 x 1..",
          t->max_seq_len, " tokens and ", kMinTextVocab, "..", kMaxTextVocab,
          " tokens of vocabulary)"));
    }
    return m->walk(input);
  }
  if (!Takes(model, input)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot take input ", ShapeText(input), " (it takes ",
        InputText(model), " and at least 1 class)"));
  }
  return m->walk(input);
}

}  // namespace powersweep
