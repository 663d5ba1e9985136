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
};

// Sorted by name.
constexpr KnownModel kModels[] = {
    {"lenet5", {1, 28, 10}, LeNet5Cost},
    {"lstm_lm", {1, 35, 33278}, LstmLmCost},
    {"mobilebert", {1, 128, 30522}, MobileBertCost},
    {"mobilenetv3", {3, 224, 2000}, MobileNetV3LargeCost},
    {"resnet18", {3, 32, 10}, ResNet18Cost},
    {"resnet50", {3, 224, 1000}, ResNet50Cost},
    {"vgg11", {3, 32, 10}, Vgg11Cost},
};
static_assert(NamesAreModelNames(kModels),
              "a twin cost model for every name of common/model_names.h");

// The smallest square RGB input every torchvision network here reduces to
// at least 1x1 (VGG-11 halves it five times).
constexpr int kMinRgbSize = 32;

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
  const bool lenet = model == "lenet5";
  const bool ok = input.classes >= 1 &&
                  (lenet ? input.channels == 1 && input.size == 28
                         : input.channels == 3 && input.size >= kMinRgbSize);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot take input ", ShapeText(input), " (it takes ",
        lenet ? "1x28x28" : absl::StrCat("3xSxS with S >= ", kMinRgbSize),
        " and at least 1 class)"));
  }
  return m->walk(input);
}

}  // namespace powersweep
