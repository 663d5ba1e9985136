// The speech models powersweep runs (they take log-mel spectrograms with
// their transcripts, not images or token ids) and the limits on their one
// option, shared by the workload binary (workloads/models/catalog.cc), the
// controller's sweep validation (controller/sweep/validate.cc) and the twin
// (agent/platform/twin), so a spectrogram size that does not fit is
// rejected at submit with the same bounds the workload applies.
//
//   model        default frames  frames       mel bands  alphabet
//   deepspeech2  256             32..3000     80         29
//
// frames (a sweep's or the workload's seq_len): spectrogram frames of one
// sample, 10 ms apart (256: 2.56 s of speech; 3000: 30 s). Every utterance
// is padded to this window (workloads/data/speech_format.h); the mel bands
// are fixed. The alphabet is the CTC blank, space, apostrophe and a-z.
// A sample carries one row more than its frames: the transcript row
// (speech_format.h), so it is (1, frames + 1, 80).
#ifndef POWERSWEEP_COMMON_SPEECH_MODELS_H_
#define POWERSWEEP_COMMON_SPEECH_MODELS_H_

#include <cstdint>
#include <string_view>

namespace powersweep {

struct SpeechModelLimits {
  const char* name;
  int64_t default_frames;
  int64_t min_frames;
  int64_t max_frames;
  int64_t mel_bands;
  int64_t alphabet;  // output classes, the CTC blank included
};

inline constexpr SpeechModelLimits kSpeechModels[] = {
    {"deepspeech2", 256, 32, 3000, 80, 29},
};

// The limits of `model`, or nullptr when it is not a speech model.
constexpr const SpeechModelLimits* FindSpeechModel(std::string_view model) {
  for (const SpeechModelLimits& m : kSpeechModels) {
    if (model == m.name) return &m;
  }
  return nullptr;
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_SPEECH_MODELS_H_
