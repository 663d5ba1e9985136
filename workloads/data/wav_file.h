// WAV files: the RIFF/WAVE container with 16-bit PCM samples, as espeak-ng
// writes them (gen-dataset --format speech) and most recorders do.
//
// ParseWav accepts a RIFF "WAVE" file with a "fmt " chunk of format 1
// (PCM; also WAVE_FORMAT_EXTENSIBLE whose sub-format is PCM), 16 bits per
// sample, 1 to 8 channels and any sample rate from 8,000 to 192,000 Hz,
// and a "data" chunk; other chunks (LIST, fact, ...) are skipped. Channels
// are averaged to mono and samples scaled to -1..1 (int16 / 32768). No
// resampling: the log-mel front end (log_mel.h) sizes its windows in
// seconds, so any rate works. A data chunk whose stated size runs past the
// end of the file (a writer that streamed to a pipe, 0xffffffff) is read
// up to the end of the file, whole sample frames only.
//
// ReadWavInfo reads only the header (the first 64 KiB at most) and gives
// the format and the length in samples, for checks at open time.
//
// Errors name the file: kNotFound / kPermissionDenied from reading,
// kDataLoss for anything that is not such a file, saying which field is
// wrong (e.g. "16 bits per sample expected, got 24"). WriteWav writes a
// mono 16-bit PCM file (tests; file_util.h errors). Stateless and
// thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_WAV_FILE_H_
#define POWERSWEEP_WORKLOADS_DATA_WAV_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

struct WavInfo {
  int sample_rate = 0;
  int channels = 0;
  int64_t samples = 0;      // per channel
  int64_t data_offset = 0;  // of the first sample in the file
};

struct WavAudio {
  int sample_rate = 0;
  std::vector<float> samples;  // mono, -1..1
};

// `bytes` is the whole file (or, for ReadWavInfo's use, its beginning with
// file_size the whole length); `name` is used in errors.
absl::StatusOr<WavInfo> ParseWavHeader(absl::string_view bytes,
                                       int64_t file_size,
                                       const std::string& name);
absl::StatusOr<WavAudio> ParseWav(absl::string_view bytes,
                                  const std::string& name);

absl::StatusOr<WavAudio> ReadWav(const std::string& path);
absl::StatusOr<WavInfo> ReadWavInfo(const std::string& path);

absl::Status WriteWav(const std::string& path, int sample_rate,
                      const std::vector<int16_t>& samples);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_WAV_FILE_H_
