#include "agent/platform/twin/twin_workload_cost.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/speech_models.h"
#include "common/text_models.h"

namespace powersweep {

absl::StatusOr<TwinWorkloadCost> TwinWorkloadCostFor(
    const std::string& model, const std::string& dataset,
    const TwinInputOverride& override_input) {
  PS_ASSIGN_OR_RETURN(const ModelInput model_input, DefaultModelInput(model));
  PS_ASSIGN_OR_RETURN(DatasetCost data, DatasetCostFor(dataset));
  // Synthetic data takes the model's own input (as the workload makes it).
  ModelInput input = data.Synthetic() ? model_input : data.input;
  const TextModelLimits* text = FindTextModel(model);
  const SpeechModelLimits* speech = FindSpeechModel(model);
  const bool tokens = data.format == DatasetFormat::kText ||
                      data.format == DatasetFormat::kBabi;
  if (!data.Synthetic() && (text != nullptr) != tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot run on dataset ", dataset, ": ",
        text != nullptr ? "it reads token sequences and the set does not "
                          "hold token ids"
                        : "it does not read token sequences and the set "
                          "holds token ids"));
  }
  if (!data.Synthetic() &&
      (speech != nullptr) != (data.format == DatasetFormat::kSpeech)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot run on dataset ", dataset, ": ",
        speech != nullptr ? "it reads spectrograms and the set holds none"
                          : "the set holds speech, which only deepspeech2 "
                            "reads"));
  }
  if (speech != nullptr && override_input.seq_len > 0) {
    input.size = override_input.seq_len;  // the window of frames
  }
  // bAbI sets are memnet's stories and questions; memnet reads nothing else.
  if (!data.Synthetic() && text != nullptr &&
      (model == "memnet") != (data.format == DatasetFormat::kBabi)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "model ", model, " cannot run on dataset ", dataset, ": ",
        model == "memnet" ? "it reads bAbI stories and questions"
                          : "a bAbI set holds memnet's stories and questions"));
  }
  if (text != nullptr) {
    input.size = override_input.seq_len > 0 ? override_input.seq_len
                                            : text->default_seq_len;
    if (override_input.vocab > 0) input.classes = override_input.vocab;
    if (data.format == DatasetFormat::kText) {
      const int64_t window = text->SampleTokens(input.size);
      for (auto [split, tokens] :
           {std::pair{&data.train, data.train_tokens},
            std::pair{&data.infer, data.infer_tokens}}) {
        split->samples =
            tokens >= window ? (tokens - window) / input.size + 1 : 0;
      }
      data.record_bytes = 4.0 * input.size;
    }
  }
  if (override_input.classes > 0) input.classes = override_input.classes;
  if (!IsSequenceModel(model) && speech == nullptr &&
      (!data.LoadedAtStart() || data.Synthetic())) {
    // image folders, synthetic
    if (override_input.input_size > 0) {
      input.size = override_input.input_size;
    } else if (model_input.size > input.size) {
      input.size = model_input.size;  // inception_v3: 299, as the workload
    }
  }
  absl::StatusOr<ModelCost> cost = ModelCostFor(model, input);
  if (!cost.ok()) {
    return absl::Status(cost.status().code(),
                        absl::StrCat("model ", model, " cannot run on dataset ",
                                     dataset, ": ", cost.status().message()));
  }
  return TwinWorkloadCost{*std::move(cost), std::move(data)};
}

std::vector<TwinWorkloadPair> TwinWorkloadPairs() {
  std::vector<TwinWorkloadPair> pairs;
  for (const std::string& model : TwinModelNames()) {
    for (const std::string& dataset : TwinDatasetNames()) {
      if (TwinWorkloadCostFor(model, dataset).ok()) {
        pairs.push_back({model, dataset});
      }
    }
  }
  return pairs;
}

}  // namespace powersweep
