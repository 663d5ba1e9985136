// The speech data set format (gen-dataset --format speech writes it,
// speech_dataset.h reads it) and the sample layout the speech models take.
//
// On disk, DIR holds for each split (train, test):
//   DIR/<split>-transcripts.tsv  one utterance a line:
//                                "<WAV path relative to DIR>\t<transcript>"
//   DIR/<split>/NNNNNN.wav       the audio, 16-bit PCM WAV (wav_file.h)
// Transcripts are lower-case: the characters of kSpeechAlphabet (space,
// apostrophe, a-z), 1 to kMaxTranscriptChars of them, no leading, trailing
// or doubled spaces. Lines are LF-terminated, UTF-8 (ASCII in practice);
// empty lines are skipped. A generated set also holds the generator's
// marker file (dataset_generator.h) naming the voices used.
//
// A sample as the loader delivers it is one channel of frames + 1 rows of
// mel_bands floats, (1, frames + 1, mel_bands):
//   rows 0..frames-1  the utterance's log-mel spectrogram (log_mel.h),
//                     each band normalised over the utterance to mean 0
//                     and standard deviation 1 (std floored at 1e-3),
//                     then zeros after its last frame (padding)
//   row frames        the transcript row: [valid frames, characters,
//                     id_1, ..., id_L, 0, ...] (ids: CharacterId below)
// so one fixed-size float tensor carries variable-length audio and text,
// and the model's CTC loss reads the lengths from the last row. Hence a
// transcript holds at most mel_bands - 2 characters (78 at 80 bands).
#ifndef POWERSWEEP_WORKLOADS_DATA_SPEECH_FORMAT_H_
#define POWERSWEEP_WORKLOADS_DATA_SPEECH_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

// Id 0 is the CTC blank; ids 1..28 are these characters, in order.
inline constexpr char kSpeechAlphabet[] = " 'abcdefghijklmnopqrstuvwxyz";
inline constexpr int kSpeechClasses = 29;  // blank + 28 characters
inline constexpr int kSpeechMelBands = 80;
inline constexpr int kMaxTranscriptChars = kSpeechMelBands - 2;

// 1..28 for a character of the alphabet, else 0.
int CharacterId(char c);
// The character of id 1..28 ('?' otherwise).
char IdCharacter(int id);
// Ids of `text` (which must be alphabet characters only).
std::vector<int> TranscriptIds(const std::string& text);
// The characters of `ids`, skipping blanks (0).
std::string IdsToText(const std::vector<int64_t>& ids);

// "train-transcripts.tsv" / "test-transcripts.tsv", and the WAV folder
// "train" / "test".
std::string SpeechManifestName(Split split);
std::string SpeechAudioFolder(Split split);

struct Utterance {
  std::string wav;         // relative to the data set's directory
  std::string transcript;  // checked: alphabet only, 1..78 characters
};

// Parses a manifest (`name` for errors): kDataLoss naming the line for a
// line without a tab, an empty or absolute WAV path or one with "..", or a
// transcript that breaks the rules above (the offending character shown).
absl::StatusOr<std::vector<Utterance>> ParseSpeechManifest(
    const std::string& text, const std::string& name);
std::string FormatSpeechManifest(const std::vector<Utterance>& utterances);

// Whether `text` is a valid transcript; the reason otherwise.
absl::Status CheckTranscript(const std::string& text);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_SPEECH_FORMAT_H_
