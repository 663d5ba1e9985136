#include "workloads/data/wav_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

constexpr int64_t kHeaderReadBytes = 64 * 1024;

uint32_t U32(absl::string_view b, size_t at) {
  const auto* p = reinterpret_cast<const uint8_t*>(b.data() + at);
  return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t{p[3]} << 24);
}
uint16_t U16(absl::string_view b, size_t at) {
  const auto* p = reinterpret_cast<const uint8_t*>(b.data() + at);
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

absl::Status Bad(const std::string& name, const std::string& why) {
  return absl::DataLossError(
      absl::StrFormat("%s: not a 16-bit PCM WAV file: %s", name, why));
}

void PutU32(std::string* s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU16(std::string* s, uint16_t v) {
  s->push_back(static_cast<char>(v));
  s->push_back(static_cast<char>(v >> 8));
}

}  // namespace

absl::StatusOr<WavInfo> ParseWavHeader(absl::string_view bytes,
                                       int64_t file_size,
                                       const std::string& name) {
  if (bytes.size() < 12 || bytes.substr(0, 4) != "RIFF" ||
      bytes.substr(8, 4) != "WAVE") {
    return Bad(name, "no RIFF/WAVE header");
  }
  WavInfo info;
  bool have_fmt = false;
  int block_align = 0;
  size_t at = 12;
  while (at + 8 <= bytes.size()) {
    const absl::string_view id = bytes.substr(at, 4);
    const uint32_t size = U32(bytes, at + 4);
    const size_t body = at + 8;
    if (id == "fmt ") {
      if (size < 16 || body + 16 > bytes.size()) {
        return Bad(name, "fmt chunk shorter than 16 bytes");
      }
      uint16_t format = U16(bytes, body);
      info.channels = U16(bytes, body + 2);
      info.sample_rate = static_cast<int>(U32(bytes, body + 4));
      block_align = U16(bytes, body + 12);
      const int bits = U16(bytes, body + 14);
      if (format == 0xFFFE && size >= 40 && body + 26 <= bytes.size()) {
        format = U16(bytes, body + 24);  // the sub-format GUID's first bytes
      }
      if (format != 1) {
        return Bad(name, absl::StrFormat("format %d (PCM, 1, expected)",
                                         format));
      }
      if (bits != 16) {
        return Bad(name, absl::StrFormat(
                             "16 bits per sample expected, got %d", bits));
      }
      if (info.channels < 1 || info.channels > 8) {
        return Bad(name, absl::StrFormat("%d channels (1..8 expected)",
                                         info.channels));
      }
      if (info.sample_rate < 8000 || info.sample_rate > 192000) {
        return Bad(name, absl::StrFormat(
                             "sample rate %d Hz (8000..192000 expected)",
                             info.sample_rate));
      }
      if (block_align != 2 * info.channels) {
        return Bad(name, absl::StrFormat("block align %d (%d expected)",
                                         block_align, 2 * info.channels));
      }
      have_fmt = true;
    } else if (id == "data") {
      if (!have_fmt) return Bad(name, "data chunk before the fmt chunk");
      const int64_t available = file_size - static_cast<int64_t>(body);
      const int64_t length = std::min<int64_t>(size, available);
      info.samples = length / block_align;
      info.data_offset = static_cast<int64_t>(body);
      return info;
    }
    at = body + size + (size & 1);  // chunks are padded to even sizes
  }
  return Bad(name, have_fmt ? "no data chunk" : "no fmt chunk");
}

absl::StatusOr<WavAudio> ParseWav(absl::string_view bytes,
                                  const std::string& name) {
  absl::StatusOr<WavInfo> info =
      ParseWavHeader(bytes, static_cast<int64_t>(bytes.size()), name);
  if (!info.ok()) return info.status();
  WavAudio audio;
  audio.sample_rate = info->sample_rate;
  audio.samples.resize(info->samples);
  const int ch = info->channels;
  const float scale = 1.0f / (32768.0f * ch);
  const char* p = bytes.data() + info->data_offset;
  for (int64_t i = 0; i < info->samples; ++i) {
    int32_t sum = 0;
    for (int c = 0; c < ch; ++c) {
      int16_t v;
      std::memcpy(&v, p + 2 * (i * ch + c), 2);  // little-endian hosts
      sum += v;
    }
    audio.samples[i] = sum * scale;
  }
  return audio;
}

absl::StatusOr<WavAudio> ReadWav(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadPlainFile(path);
  if (!bytes.ok()) return bytes.status();
  return ParseWav(*bytes, path);
}

absl::StatusOr<WavInfo> ReadWavInfo(const std::string& path) {
  absl::StatusOr<int64_t> size = FileSize(path);
  if (!size.ok()) return size.status();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for reading"));
  }
  std::string head(std::min<int64_t>(*size, kHeaderReadBytes), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  return ParseWavHeader(head, *size, path);
}

absl::Status WriteWav(const std::string& path, int sample_rate,
                      const std::vector<int16_t>& samples) {
  const uint32_t data_bytes = static_cast<uint32_t>(samples.size() * 2);
  std::string out = "RIFF";
  PutU32(&out, 36 + data_bytes);
  out += "WAVEfmt ";
  PutU32(&out, 16);
  PutU16(&out, 1);  // PCM
  PutU16(&out, 1);  // mono
  PutU32(&out, static_cast<uint32_t>(sample_rate));
  PutU32(&out, static_cast<uint32_t>(sample_rate) * 2);
  PutU16(&out, 2);
  PutU16(&out, 16);
  out += "data";
  PutU32(&out, data_bytes);
  for (int16_t v : samples) PutU16(&out, static_cast<uint16_t>(v));
  return WriteWholeFile(path, out);
}

}  // namespace powersweep
