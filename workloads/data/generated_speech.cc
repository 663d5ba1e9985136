// The speech sets of gen-dataset --format speech (dataset_generator.h):
// utterances of 1 to 3 words from the WordNet glosses of Debian's
// wordnet-base, spoken by espeak-ng (espeak.h) with the voice, speed and
// pitch varied per utterance, written as WAV files with transcript
// manifests (speech_format.h).
#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/speech_models.h"
#include "workloads/data/espeak.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/generated_set_writers.h"
#include "workloads/data/log_mel.h"
#include "workloads/data/sample_rng.h"
#include "workloads/data/speech_format.h"
#include "workloads/data/wav_file.h"

namespace powersweep {
namespace {

// espeak-ng voices (English accents) and variants (male and female
// timbres) an utterance draws from.
constexpr const char* kVoices[] = {"en-us", "en", "en-gb-x-rp",
                                   "en-gb-scotland"};
constexpr const char* kVariants[] = {"m1", "m2", "m3", "m4",
                                     "f1", "f2", "f3", "f4"};
constexpr int kMaxWords = 3;
constexpr int kMaxTries = 8;
constexpr int kBatch = 64;  // utterances synthesised in parallel

// The distinct words of the glosses: runs of 2..10 letters a-z in the text
// after "| " of every synset line, sorted.
absl::StatusOr<std::vector<std::string>> GlossWords(const std::string& dir) {
  std::set<std::string> words;
  for (const char* pos : {"noun", "verb", "adj", "adv"}) {
    const std::string path = JoinPath(dir, absl::StrCat("data.", pos));
    if (!IsRegularFile(path)) {
      return absl::NotFoundError(absl::StrCat(
          "--from-wordnet ", dir, ": ", path,
          " not found (install Debian's wordnet-base, which puts the "
          "database in /usr/share/wordnet)"));
    }
    absl::StatusOr<std::string> text = ReadPlainFile(path);
    if (!text.ok()) return text.status();
    for (absl::string_view line : absl::StrSplit(*text, '\n')) {
      if (absl::StartsWith(line, "  ")) continue;  // the licence header
      const size_t bar = line.find("| ");
      if (bar == absl::string_view::npos) continue;
      std::string word;
      bool plain = true;  // no capitals or digits in the run
      auto flush = [&] {
        if (plain && word.size() >= 2 && word.size() <= 10) words.insert(word);
        word.clear();
        plain = true;
      };
      for (char c : line.substr(bar + 2)) {
        if (c >= 'a' && c <= 'z') {
          word.push_back(c);
        } else if (absl::ascii_isalnum(static_cast<unsigned char>(c))) {
          plain = false;
        } else {
          flush();
        }
      }
      flush();
    }
  }
  if (words.size() < 10) {
    return absl::DataLossError(absl::StrCat(
        "--from-wordnet ", dir, ": fewer than 10 words in the glosses"));
  }
  return std::vector<std::string>(words.begin(), words.end());
}

struct Planned {
  std::string wav;  // relative path
  std::string text;
  SpeakOptions voice;
  absl::Status status;
};

// CTC's frames for `text` after the model's 2x striding (speech_dataset.h).
bool FitsWindow(int64_t frames, const std::string& text, int64_t window) {
  int64_t need = static_cast<int64_t>(text.size());
  for (size_t i = 1; i < text.size(); ++i) need += text[i] == text[i - 1];
  return frames >= 1 && frames <= window && (frames + 1) / 2 >= need;
}

// Synthesises utterance `index` of `split` into out_dir/u.wav, drawing
// words until one fits the default window (fewer words each try).
void SynthesizeUtterance(const GenerateOptions& o, const std::string& espeak,
                         const std::vector<std::string>& words, Split split,
                         int64_t index, Planned* u) {
  SampleRng rng(MixSeed({o.seed, static_cast<uint64_t>(split),
                         static_cast<uint64_t>(index), 0x5eec4}));
  const int64_t window = kSpeechModels[0].default_frames;
  u->voice.voice = absl::StrCat(
      kVoices[rng.UniformInt(0, std::size(kVoices) - 1)], "+",
      kVariants[rng.UniformInt(0, std::size(kVariants) - 1)]);
  u->voice.words_per_minute = static_cast<int>(rng.UniformInt(150, 190));
  u->voice.pitch = static_cast<int>(rng.UniformInt(35, 65));
  const std::string path = JoinPath(o.out_dir, u->wav);
  int count = static_cast<int>(rng.UniformInt(1, kMaxWords));
  for (int attempt = 0; attempt < kMaxTries; ++attempt) {
    std::vector<std::string> picked;
    for (int w = 0; w < count; ++w) {
      picked.push_back(words[rng.UniformInt(0, words.size() - 1)]);
    }
    u->text = absl::StrJoin(picked, " ");
    if (!CheckTranscript(u->text).ok()) continue;  // too long
    u->status = Speak(espeak, u->text, u->voice, path);
    if (!u->status.ok()) return;
    absl::StatusOr<WavInfo> info = ReadWavInfo(path);
    if (!info.ok()) {
      u->status = info.status();
      return;
    }
    const LogMel sizes(info->sample_rate);
    if (FitsWindow(sizes.Frames(info->samples), u->text, window)) return;
    count = std::max(1, count - 1);
  }
  u->status = absl::InternalError(absl::StrFormat(
      "%s: no utterance of %s fit %d frames in %d tries", path,
      u->voice.voice, window, kMaxTries));
}

absl::Status WriteSplit(const GenerateOptions& o, const std::string& espeak,
                        const std::vector<std::string>& words, Split split,
                        int64_t count, int64_t done_before,
                        ProgressReporter& progress) {
  absl::Status st = MakeDirectories(JoinPath(o.out_dir, SpeechAudioFolder(split)));
  if (!st.ok()) return st;
  std::vector<Utterance> manifest;
  const int threads = o.threads > 0
                          ? o.threads
                          : std::max(1u, std::thread::hardware_concurrency());
  for (int64_t start = 0; start < count; start += kBatch) {
    const int64_t n = std::min<int64_t>(kBatch, count - start);
    std::vector<Planned> batch(n);
    for (int64_t i = 0; i < n; ++i) {
      batch[i].wav = absl::StrFormat("%s/%06d.wav", SpeechAudioFolder(split),
                                     start + i);
    }
    std::atomic<int64_t> next{0};
    auto work = [&] {
      for (int64_t i = next++; i < n; i = next++) {
        SynthesizeUtterance(o, espeak, words, split, start + i, &batch[i]);
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int64_t>(threads, n); ++t) {
      pool.emplace_back(work);
    }
    work();
    for (std::thread& t : pool) t.join();
    for (Planned& u : batch) {
      if (!u.status.ok()) return u.status;
      manifest.push_back(Utterance{u.wav, u.text});
    }
    progress.Report(done_before + start + n);
  }
  return WriteWholeFile(JoinPath(o.out_dir, SpeechManifestName(split)),
                        FormatSpeechManifest(manifest));
}

}  // namespace

absl::Status WriteSpeechSet(const GenerateOptions& options,
                            ProgressReporter& progress) {
  absl::StatusOr<std::string> espeak = FindEspeak();
  if (!espeak.ok()) return espeak.status();
  absl::StatusOr<std::vector<std::string>> words =
      GlossWords(options.wordnet_dir);
  if (!words.ok()) return words.status();
  absl::Status st = WriteSplit(options, *espeak, *words, Split::kTrain,
                               options.train_count, 0, progress);
  if (!st.ok()) return st;
  return WriteSplit(options, *espeak, *words, Split::kTest, options.test_count,
                    options.train_count, progress);
}

}  // namespace powersweep
