// SpeechDataset: one split of a speech data set (speech_format.h) as a
// Dataset: format "speech", transcripts read by OpenSpeechDataset, the WAV
// of a sample read and turned into its log-mel spectrogram (log_mel.h) by
// every Load, in the loader's workers, as image folders decode JPEGs.
//
// options.seq_len is the frame window (0 = 256, common/speech_models.h):
// every sample is (1, frames + 1, 80), the spectrogram padded with zeros to
// the window and the transcript row after it (speech_format.h). Utterances
// are not cropped (a cropped utterance would no longer match its
// transcript): OpenSpeechDataset reads every WAV's header and refuses a
// window shorter than the longest utterance, naming it. label(i) is the id
// of the transcript's first character (the transcript itself travels in the
// sample; num_classes() is the 29 CTC classes).
//
// Every WAV of a split must have the same sample rate (any rate
// wav_file.h reads; the log-mel's 25 ms windows and 10 ms hops are sized
// for it). A valid utterance gives at least 1 frame and, after the
// model's 2x time striding, at least as many frames as CTC needs for its
// transcript (characters + repeated neighbours).
//
// Errors: kNotFound when DIR/<split>-transcripts.tsv or a WAV it names is
// missing; kDataLoss for a bad manifest line or WAV (naming the file and
// line), a sample rate that differs from the first file's, or an utterance
// too short for its transcript; kInvalidArgument naming "--seq-len" when
// the window is outside 32..3000 frames or shorter than an utterance, and
// for options.image_size != 0. Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_SPEECH_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_SPEECH_DATASET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

// True when `dir` holds train-transcripts.tsv or test-transcripts.tsv.
bool LooksLikeSpeechDataset(const std::string& dir);

absl::StatusOr<std::unique_ptr<Dataset>> OpenSpeechDataset(
    const std::string& dir, const DatasetOptions& options);

// Writes the sample layout of speech_format.h for `audio_frames` log-mel
// frames (row-major, frames x bands) of an utterance: normalised, padded to
// `window` rows, the transcript row after. out holds (window + 1) * bands.
void WriteSpeechSample(const float* log_mel, int64_t audio_frames,
                       const std::string& transcript, int64_t window,
                       int bands, float* out);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_SPEECH_DATASET_H_
