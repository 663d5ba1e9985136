#include "workloads/data/idx_reader.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

constexpr uint32_t kMaxSide = 4096;  // no IDX image dataset is larger

uint32_t BigEndian32(const std::string& bytes, size_t offset) {
  auto b = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i]));
  };
  return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

absl::Status Corrupt(const std::string& path, const std::string& reason) {
  return absl::DataLossError(absl::StrCat(path, ": ", reason));
}

// Checks the header length and magic number shared by both file kinds.
absl::Status CheckHeader(const std::string& path, const std::string& bytes,
                         size_t header_len, uint32_t magic, const char* kind) {
  if (bytes.size() < header_len) {
    return Corrupt(
        path, absl::StrFormat("truncated: an IDX %s file starts with a %d-byte "
                              "header but the file holds %d bytes",
                              kind, header_len, bytes.size()));
  }
  uint32_t got = BigEndian32(bytes, 0);
  if (got != magic) {
    return Corrupt(path,
                   absl::StrFormat("wrong magic number 0x%08x (IDX %s files "
                                   "start with 0x%08x)",
                                   got, kind, magic));
  }
  return absl::OkStatus();
}

// Explains a payload whose size differs from what the header announces.
absl::Status SizeMismatch(const std::string& path, const std::string& what,
                          uint64_t expected, uint64_t held) {
  const char* kind = held < expected ? "truncated" : "trailing data";
  return Corrupt(
      path, absl::StrFormat("%s: header announces %s (%d bytes) but the file "
                            "holds %d",
                            kind, what, expected, held));
}

}  // namespace

const char* IdxSplitPrefix(Split split) {
  return split == Split::kTrain ? "train" : "t10k";
}

absl::StatusOr<std::string> FindIdxFile(const std::string& dir,
                                        const std::string& name) {
  std::string base = JoinPath(dir, name);
  std::string gz = absl::StrCat(base, ".gz");
  if (IsRegularFile(gz)) return gz;
  if (IsRegularFile(base)) return base;
  return absl::NotFoundError(absl::StrCat(gz, ": not found (nor ", base, ")"));
}

absl::StatusOr<IdxImages> ReadIdxImages(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  constexpr size_t kHeader = 16;
  absl::Status st =
      CheckHeader(path, *bytes, kHeader, kIdxImagesMagic, "images");
  if (!st.ok()) return st;
  uint32_t count = BigEndian32(*bytes, 4);
  uint32_t rows = BigEndian32(*bytes, 8);
  uint32_t cols = BigEndian32(*bytes, 12);
  if (count == 0 || rows == 0 || cols == 0 || rows > kMaxSide ||
      cols > kMaxSide) {
    return Corrupt(
        path, absl::StrFormat("bad dimensions: %d images of %dx%d (each must "
                              "be at least 1, sides at most %d)",
                              count, rows, cols, kMaxSide));
  }
  uint64_t expected = uint64_t{count} * rows * cols;
  uint64_t held = bytes->size() - kHeader;
  if (held != expected) {
    return SizeMismatch(
        path, absl::StrFormat("%d images of %dx%d", count, rows, cols),
        expected, held);
  }
  IdxImages data;
  data.count = count;
  data.rows = static_cast<int>(rows);
  data.cols = static_cast<int>(cols);
  data.pixels.assign(bytes->begin() + kHeader, bytes->end());
  data.images_path = path;
  return data;
}

absl::StatusOr<std::vector<uint8_t>> ReadIdxLabels(const std::string& path,
                                                   int num_classes) {
  absl::StatusOr<std::string> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  constexpr size_t kHeader = 8;
  absl::Status st =
      CheckHeader(path, *bytes, kHeader, kIdxLabelsMagic, "labels");
  if (!st.ok()) return st;
  uint32_t count = BigEndian32(*bytes, 4);
  if (count == 0) return Corrupt(path, "bad dimensions: 0 labels");
  uint64_t held = bytes->size() - kHeader;
  if (held != count) {
    return SizeMismatch(path, absl::StrFormat("%d labels", count), count, held);
  }
  std::vector<uint8_t> labels(bytes->begin() + kHeader, bytes->end());
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= num_classes) {
      return Corrupt(path,
                     absl::StrFormat("label %d of sample %d is outside 0..%d",
                                     labels[i], i, num_classes - 1));
    }
  }
  return labels;
}

absl::StatusOr<IdxImages> LoadIdxSplit(const std::string& dir, Split split) {
  const std::string prefix = IdxSplitPrefix(split);
  absl::StatusOr<std::string> images_path =
      FindIdxFile(dir, absl::StrCat(prefix, "-images-idx3-ubyte"));
  if (!images_path.ok()) return images_path.status();
  absl::StatusOr<std::string> labels_path =
      FindIdxFile(dir, absl::StrCat(prefix, "-labels-idx1-ubyte"));
  if (!labels_path.ok()) return labels_path.status();

  absl::StatusOr<IdxImages> data = ReadIdxImages(*images_path);
  if (!data.ok()) return data.status();
  absl::StatusOr<std::vector<uint8_t>> labels =
      ReadIdxLabels(*labels_path, data->num_classes);
  if (!labels.ok()) return labels.status();
  if (static_cast<int64_t>(labels->size()) != data->count) {
    return absl::DataLossError(absl::StrFormat(
        "%s: holds %d labels but %s holds %d images", *labels_path,
        labels->size(), *images_path, data->count));
  }
  data->labels = *std::move(labels);
  data->labels_path = *labels_path;
  return data;
}

}  // namespace powersweep
