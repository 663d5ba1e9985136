#include "workloads/data/speech_dataset.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "common/speech_models.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/log_mel.h"
#include "workloads/data/speech_format.h"
#include "workloads/data/wav_file.h"

namespace powersweep {
namespace {

constexpr float kStdFloor = 1e-3f;

const SpeechModelLimits& Limits() { return kSpeechModels[0]; }

// Output frames of the models' 2x time striding (ceil(frames / 2)).
int64_t StridedFrames(int64_t frames) { return (frames + 1) / 2; }

// Frames CTC needs for `text`: one per character and a blank between
// repeated neighbours.
int64_t CtcMinimumFrames(const std::string& text) {
  int64_t n = static_cast<int64_t>(text.size());
  for (size_t i = 1; i < text.size(); ++i) n += text[i] == text[i - 1];
  return n;
}

class SpeechDataset : public Dataset {
 public:
  SpeechDataset(std::string dir, Split split, std::vector<Utterance> utts,
                std::vector<std::string> files, int64_t bytes, int rate,
                int64_t window)
      : dir_(std::move(dir)),
        split_(split),
        utts_(std::move(utts)),
        files_(std::move(files)),
        bytes_(bytes),
        log_mel_(rate),
        window_(window) {}

  std::string format() const override { return "speech"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override { return static_cast<int64_t>(utts_.size()); }
  int num_classes() const override { return kSpeechClasses; }
  SampleShape shape() const override {
    return {1, window_ + 1, kSpeechMelBands};
  }
  int label(int64_t i) const override {
    return CharacterId(utts_[i].transcript[0]);
  }
  absl::Status Load(int64_t i, uint64_t /*aug_seed*/,
                    float* out) const override {
    if (i < 0 || i >= size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sample %d is outside 0..%d", dir_, i, size() - 1));
    }
    const std::string& file = files_[i];
    absl::StatusOr<WavAudio> audio = ReadWav(file);
    if (!audio.ok()) return audio.status();
    if (audio->sample_rate != log_mel_.sample_rate()) {
      return absl::DataLossError(absl::StrFormat(
          "%s: sample rate %d Hz changed since the set was opened (%d Hz)",
          file, audio->sample_rate, log_mel_.sample_rate()));
    }
    std::vector<float> mel(window_ * kSpeechMelBands);
    const int64_t frames =
        log_mel_.Compute(audio->samples.data(),
                         static_cast<int64_t>(audio->samples.size()), window_,
                         mel.data());
    WriteSpeechSample(mel.data(), frames, utts_[i].transcript, window_,
                      kSpeechMelBands, out);
    return absl::OkStatus();
  }
  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return true; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  const std::string dir_;
  const Split split_;
  const std::vector<Utterance> utts_;
  const std::vector<std::string> files_;  // WAV paths, one per utterance
  const int64_t bytes_;
  const LogMel log_mel_;
  const int64_t window_;
};

}  // namespace

void WriteSpeechSample(const float* log_mel, int64_t audio_frames,
                       const std::string& transcript, int64_t window,
                       int bands, float* out) {
  const int64_t frames = std::min(audio_frames, window);
  std::fill(out, out + (window + 1) * bands, 0.0f);
  for (int b = 0; b < bands; ++b) {
    double sum = 0, sq = 0;
    for (int64_t t = 0; t < frames; ++t) sum += log_mel[t * bands + b];
    const double mean = frames > 0 ? sum / frames : 0.0;
    for (int64_t t = 0; t < frames; ++t) {
      const double d = log_mel[t * bands + b] - mean;
      sq += d * d;
    }
    const float sd = std::max(
        kStdFloor, static_cast<float>(frames > 0 ? std::sqrt(sq / frames) : 0));
    for (int64_t t = 0; t < frames; ++t) {
      out[t * bands + b] =
          static_cast<float>((log_mel[t * bands + b] - mean) / sd);
    }
  }
  float* row = out + window * bands;
  row[0] = static_cast<float>(frames);
  const int64_t chars =
      std::min<int64_t>(static_cast<int64_t>(transcript.size()), bands - 2);
  row[1] = static_cast<float>(chars);
  for (int64_t c = 0; c < chars; ++c) {
    row[2 + c] = static_cast<float>(CharacterId(transcript[c]));
  }
}

bool LooksLikeSpeechDataset(const std::string& dir) {
  return IsRegularFile(JoinPath(dir, SpeechManifestName(Split::kTrain))) ||
         IsRegularFile(JoinPath(dir, SpeechManifestName(Split::kTest)));
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenSpeechDataset(
    const std::string& dir, const DatasetOptions& options) {
  const SpeechModelLimits& limits = Limits();
  if (options.image_size != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "image size %d: %s is a speech set (spectrograms, no images)",
        options.image_size, dir));
  }
  const int64_t window =
      options.seq_len == 0 ? limits.default_frames : options.seq_len;
  if (window < limits.min_frames || window > limits.max_frames) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--seq-len: %d frames is outside %d..%d for a speech set (0 means "
        "the default of %d)",
        options.seq_len, limits.min_frames, limits.max_frames,
        limits.default_frames));
  }
  const std::string manifest = JoinPath(dir, SpeechManifestName(options.split));
  absl::StatusOr<std::string> text = ReadPlainFile(manifest);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<Utterance>> utts =
      ParseSpeechManifest(*text, manifest);
  if (!utts.ok()) return utts.status();
  std::vector<std::string> files;
  int64_t bytes = static_cast<int64_t>(text->size());
  int rate = 0;
  std::string first;
  int64_t longest = 0;
  std::string longest_file;
  std::optional<LogMel> probe;  // the window and hop of the split's rate
  for (const Utterance& u : *utts) {
    const std::string file = JoinPath(dir, u.wav);
    absl::StatusOr<WavInfo> info = ReadWavInfo(file);
    if (!info.ok()) return info.status();
    if (rate == 0) {
      rate = info->sample_rate;
      first = file;
    } else if (info->sample_rate != rate) {
      return absl::DataLossError(absl::StrFormat(
          "%s: sample rate %d Hz differs from %s's %d Hz (a split has one "
          "rate)",
          file, info->sample_rate, first, rate));
    }
    if (!probe.has_value()) probe.emplace(rate);
    const int64_t frames = probe->Frames(info->samples);
    if (frames < 1 || StridedFrames(frames) < CtcMinimumFrames(u.transcript)) {
      return absl::DataLossError(absl::StrFormat(
          "%s: %d samples (%d frames) are too short for its transcript '%s' "
          "(%d characters need %d frames after 2x striding)",
          file, info->samples, frames, u.transcript, u.transcript.size(),
          CtcMinimumFrames(u.transcript)));
    }
    if (frames > longest) {
      longest = frames;
      longest_file = file;
    }
    absl::StatusOr<int64_t> size = FileSize(file);
    if (!size.ok()) return size.status();
    bytes += *size;
    files.push_back(file);
  }
  if (longest > window) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--seq-len: a window of %d frames is shorter than %s (%d frames, "
        "%.2f s); utterances are not cropped, so use --seq-len %d or more",
        window, longest_file, longest, longest * 0.01, longest));
  }
  return std::unique_ptr<Dataset>(new SpeechDataset(
      dir, options.split, *std::move(utts), std::move(files), bytes, rate,
      window));
}

}  // namespace powersweep
