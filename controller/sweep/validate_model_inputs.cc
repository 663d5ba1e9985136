#include "controller/sweep/validate_model_inputs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/image_models.h"
#include "common/speech_models.h"
#include "common/text_models.h"
#include "controller/sweep/expand.h"
#include "controller/sweep/validate.h"

namespace powersweep {
namespace {

using Problems = std::vector<std::string>;

// Whether the sweep trains `pair` (an entry's :TASK suffix, else the tasks
// axis; no tasks means train, the default).
bool Trains(const v1::SweepSpec& spec, const WorkloadPair& pair) {
  if (pair.task != v1::TASK_UNSPECIFIED) return pair.task == v1::TASK_TRAIN;
  return spec.tasks().empty() ||
         std::find(spec.tasks().begin(), spec.tasks().end(),
                   v1::TASK_TRAIN) != spec.tasks().end();
}

void CheckInputSize(const v1::SweepSpec& spec,
                    const std::vector<WorkloadPair>& pairs,
                    Problems* problems) {
  const int64_t size = spec.input_size();
  if (size == 0) return;
  if (size < kMinInputSize || size > kMaxInputSize) {
    problems->push_back(absl::StrCat(
        "input_size: must be 0 (the model's default) or between ",
        kMinInputSize, " and ", kMaxInputSize, ", got ", size));
    return;
  }
  // One line per model: the training problem when some run trains it.
  std::vector<std::string> seen;
  bool any_image = false;
  for (const WorkloadPair& pair : pairs) {
    const ImageModelInput* image = FindImageModel(pair.model);
    if (image == nullptr) continue;
    any_image = true;
    if (std::find(seen.begin(), seen.end(), pair.model) != seen.end()) {
      continue;
    }
    bool train = false;
    for (const WorkloadPair& p : pairs) {
      train |= p.model == pair.model && Trains(spec, p);
    }
    seen.push_back(pair.model);
    const std::string problem = ImageSizeProblem(*image, size, train);
    if (!problem.empty()) {
      problems->push_back(absl::StrCat("input_size: ", problem));
    }
  }
  if (!any_image && !pairs.empty()) {
    problems->push_back(
        "input_size: applies to the image models and the sweep runs none "
        "(the sequence models take seq_len)");
  }
}

// seq_len and vocab: they must fit every sequence model of the sweep, and
// there must be one. seq_len is also deepspeech2's window of spectrogram
// frames (common/speech_models.h), checked against its limits.
void CheckSequenceOptions(const v1::SweepSpec& spec,
                          const std::vector<WorkloadPair>& pairs,
                          Problems* problems) {
  if (spec.seq_len() == 0 && spec.vocab() == 0) return;
  std::vector<const TextModelLimits*> text;
  std::vector<const SpeechModelLimits*> speech;
  for (const WorkloadPair& pair : pairs) {
    const TextModelLimits* t = FindTextModel(pair.model);
    if (t != nullptr && std::find(text.begin(), text.end(), t) == text.end()) {
      text.push_back(t);
    }
    const SpeechModelLimits* s = FindSpeechModel(pair.model);
    if (s != nullptr &&
        std::find(speech.begin(), speech.end(), s) == speech.end()) {
      speech.push_back(s);
    }
  }
  std::vector<std::string> names;
  for (const TextModelLimits& t : kTextModels) names.push_back(t.name);
  if (spec.seq_len() != 0) {
    for (const SpeechModelLimits* s : speech) {
      if (spec.seq_len() < s->min_frames || spec.seq_len() > s->max_frames) {
        problems->push_back(absl::StrCat(
            "seq_len: ", spec.seq_len(), " spectrogram frames do not fit ",
            s->name, " (", s->min_frames, " to ", s->max_frames,
            " frames of 10 ms; 0 for its default of ", s->default_frames,
            ")"));
      }
    }
  }
  for (const char* field : {"seq_len", "vocab"}) {
    const int64_t v = field[0] == 's' ? spec.seq_len() : spec.vocab();
    if (v == 0) continue;
    if (field[0] == 's' && text.empty() && !speech.empty()) continue;
    if (text.empty()) {
      problems->push_back(absl::StrCat(
          field, ": applies to the sequence models (", absl::StrJoin(names, ", "),
          ")", field[0] == 's' ? " and deepspeech2 (spectrogram frames)" : "",
          " and the sweep runs none"));
      continue;
    }
    if (field[0] == 'v') {
      if (v < kMinTextVocab || v > kMaxTextVocab) {
        problems->push_back(absl::StrCat(
            "vocab: ", v, " does not fit: a vocabulary is ", kMinTextVocab,
            " to ", kMaxTextVocab,
            " tokens (the 4 special tokens; ids exact in a float), or 0 for "
            "the data set's"));
      }
      continue;
    }
    for (const TextModelLimits* t : text) {
      if (v < kMinTextSeqLen || v > t->max_seq_len) {
        problems->push_back(absl::StrCat(
            "seq_len: ", v, " does not fit ", t->name, " (", kMinTextSeqLen,
            " to ", t->max_seq_len, " tokens; 0 for its default of ",
            t->default_seq_len, ")"));
      }
    }
  }
}

}  // namespace

void CheckModelInputs(const v1::SweepSpec& spec, Problems* problems) {
  const std::vector<WorkloadPair> pairs = WorkloadPairs(spec);
  CheckInputSize(spec, pairs, problems);
  CheckSequenceOptions(spec, pairs, problems);
}

}  // namespace powersweep
