#include "workloads/data/frames_format.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace powersweep {
namespace {

uint64_t ReadLe(absl::string_view bytes, size_t offset, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  }
  return v;
}

void AppendLe(std::string* out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

absl::Status Corrupt(const std::string& path, const std::string& reason) {
  return absl::DataLossError(
      absl::StrFormat("%s: not a valid frames file: %s", path, reason));
}

}  // namespace

int64_t EncodeTransition(const Transition& t, int64_t actions) {
  return t.action + actions * (2 * (t.reward + 1) + (t.done ? 1 : 0));
}

Transition DecodeTransition(int64_t code, int64_t actions) {
  Transition t;
  t.action = code % actions;
  const int64_t outcome = code / actions;
  t.done = outcome % 2 == 1;
  t.reward = static_cast<int>(outcome / 2) - 1;
  return t;
}

std::string FramesFileName(Split split) {
  return split == Split::kTrain ? "train.frames" : "test.frames";
}

std::string EncodeFramesHeader(const FramesHeader& h) {
  std::string out(kFramesMagic, 8);
  AppendLe(&out, h.height, 4);
  AppendLe(&out, h.width, 4);
  AppendLe(&out, h.stack, 4);
  AppendLe(&out, h.actions, 4);
  AppendLe(&out, h.count, 8);
  AppendLe(&out, 0, 8);
  return out;
}

absl::StatusOr<FramesHeader> ParseFramesHeader(absl::string_view bytes,
                                               const std::string& path) {
  if (static_cast<int64_t>(bytes.size()) < kFramesHeaderBytes) {
    return Corrupt(path, absl::StrFormat("%d bytes is shorter than the "
                                         "%d-byte header",
                                         bytes.size(), kFramesHeaderBytes));
  }
  if (std::memcmp(bytes.data(), kFramesMagic, 8) != 0) {
    return Corrupt(path, "the file does not start with \"PSFRAME1\"");
  }
  FramesHeader h;
  h.height = static_cast<int64_t>(ReadLe(bytes, 8, 4));
  h.width = static_cast<int64_t>(ReadLe(bytes, 12, 4));
  h.stack = static_cast<int64_t>(ReadLe(bytes, 16, 4));
  h.actions = static_cast<int64_t>(ReadLe(bytes, 20, 4));
  const uint64_t count = ReadLe(bytes, 24, 8);
  if (h.height < 1 || h.height > 4096 || h.width < 1 || h.width > 4096) {
    return Corrupt(path, absl::StrFormat("frame size %dx%d is outside "
                                         "1..4096",
                                         h.height, h.width));
  }
  if (h.stack < 1 || h.stack > 64) {
    return Corrupt(path,
                   absl::StrFormat("stack %d is outside 1..64", h.stack));
  }
  if (h.actions < 2 || h.actions > 255) {
    return Corrupt(path,
                   absl::StrFormat("actions %d is outside 2..255", h.actions));
  }
  const uint64_t body = bytes.size() - kFramesHeaderBytes;
  if (count < 1 || count > body / h.record_bytes()) {
    return Corrupt(path, absl::StrFormat(
                             "the header counts %d transitions but the file "
                             "holds %d bytes after the header, room for %d "
                             "records of %d bytes (truncated?)",
                             count, body, body / h.record_bytes(),
                             h.record_bytes()));
  }
  h.count = static_cast<int64_t>(count);
  if (body != count * h.record_bytes()) {
    return Corrupt(path, absl::StrFormat(
                             "%d bytes after the header is not %d records "
                             "of %d bytes (trailing data)",
                             body, h.count, h.record_bytes()));
  }
  return h;
}

}  // namespace powersweep
