#include "agent/platform/twin/model_cost.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/platform/twin/model_architectures.h"
#include "common/model_names.h"
#include "common/text_models.h"

namespace powersweep {
namespace {

struct KnownModel {
  const char* name;
  ModelInput default_input;
  ModelCost (*walk)(const ModelInput&);
  // The smallest square input the network reduces to at least 1x1 (VGG
  // and ResNet halve it five times; AlexNet's 11x11/4 stem and three 3x3/2
  // pools need 63; SqueezeNet's ceil-mode pools 17; Inception-v3's
  // auxiliary classifier, which a training run needs, 299). Sequence models
  // check their own token limits (common/text_models.h) instead.
  int min_size;
};

// Sorted by name.
constexpr KnownModel kModels[] = {
    {"alexnet", {3, 224, 1000}, AlexNetCost, 63},
    {"dqn", {5, 84, 3}, DqnCost, 84},
    {"gpt2_small", {1, 128, 50257}, Gpt2SmallCost, 1},
    {"inception_v3", {3, 299, 1000}, InceptionV3Cost, 299},
    {"lenet5", {1, 28, 10}, LeNet5Cost, 28},
    {"lstm_lm", {1, 35, 33278}, LstmLmCost, kMinTextSeqLen},
    {"memnet", {1, 8, 23}, MemNetCost, kMinTextSeqLen},
    {"mobilebert", {1, 128, 30522}, MobileBertCost, kMinTextSeqLen},
    {"mobilenetv3", {3, 224, 2000}, MobileNetV3LargeCost, 32},
    {"resnet18", {3, 32, 10}, ResNet18Cost, 32},
    {"resnet50", {3, 224, 1000}, ResNet50Cost, 32},
    {"seq2seq", {1, 30, 40000}, Seq2SeqCost, kMinTextSeqLen},
    {"squeezenet1_1", {3, 224, 1000}, SqueezeNet11Cost, 17},
    {"vae", {1, 28, 10}, VaeCost, 28},
    {"vgg11", {3, 32, 10}, Vgg11Cost, 32},
    {"vgg19", {3, 224, 1000}, Vgg19Cost, 32},
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

// The input `model` takes, as text, when it is not 3xSxS (S >= its
// minimum); empty
// for those models.
std::string FixedInput(const std::string& model) {
  if (model == "lenet5" || model == "vae") return "1x28x28";
  if (model == "dqn") return "5x84x84";
  if (model == "gpt2_small") {
    return "1 x seq_len token ids (seq_len 1..1023) with 50257 classes";
  }
  return "";
}

bool Takes(const KnownModel& m, const std::string& model,
           const ModelInput& in) {
  if (in.classes < 1) return false;
  if (model == "lenet5" || model == "vae") {
    return in.channels == 1 && in.size == 28;
  }
  if (model == "dqn") return in.channels == 5 && in.size == 84;
  if (model == "gpt2_small") {
    return in.channels == 1 && in.size >= 1 && in.size < 1024 &&
           in.classes == 50257;
  }
  return in.channels == 3 && in.size >= m.min_size;
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
  if (!Takes(*m, model, input)) {
    const std::string fixed = FixedInput(model);
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot take input ", ShapeText(input), " (it takes ",
        fixed.empty() ? absl::StrCat("3xSxS with S >= ", m->min_size) : fixed,
        " and at least 1 class)"));
  }
  return m->walk(input);
}

}  // namespace powersweep
