#include "workloads/data/cifar10_dataset.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/normalization.h"
#include "workloads/data/sample_rng.h"

namespace powersweep {
namespace {

constexpr int kPad = 4;
constexpr int kPlane = kCifarSide * kCifarSide;

class Cifar10Dataset : public Dataset {
 public:
  Cifar10Dataset(std::string dir, const DatasetOptions& options,
                 Cifar10Records records, std::vector<std::string> files,
                 int64_t bytes)
      : dir_(std::move(dir)),
        split_(options.split),
        augment_(options.augment && options.split == Split::kTrain),
        records_(std::move(records)),
        files_(std::move(files)),
        bytes_(bytes) {
    for (int c = 0; c < 3; ++c) {
      for (int v = 0; v < 256; ++v) lut_[c][v] = kCifar10Stats.Apply(c, v);
    }
  }

  std::string format() const override { return "cifar10"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override {
    return static_cast<int64_t>(records_.labels.size());
  }
  int num_classes() const override { return 10; }
  SampleShape shape() const override { return {3, kCifarSide, kCifarSide}; }
  int label(int64_t i) const override { return records_.labels[i]; }

  absl::Status Load(int64_t i, uint64_t aug_seed, float* out) const override {
    if (i < 0 || i >= size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sample %d is outside 0..%d", dir_, i, size() - 1));
    }
    const uint8_t* src = records_.pixels.data() + i * kCifarImageBytes;
    if (!augment_) {
      for (int c = 0; c < 3; ++c) {
        for (int p = 0; p < kPlane; ++p) {
          out[c * kPlane + p] = lut_[c][src[c * kPlane + p]];
        }
      }
      return absl::OkStatus();
    }
    SampleRng rng(aug_seed);
    const int top = static_cast<int>(rng.UniformInt(0, 2 * kPad));
    const int left = static_cast<int>(rng.UniformInt(0, 2 * kPad));
    const bool flip = rng.Coin();
    for (int c = 0; c < 3; ++c) {
      const float zero = lut_[c][0];
      for (int y = 0; y < kCifarSide; ++y) {
        const int sy = y + top - kPad;
        float* row = out + c * kPlane + y * kCifarSide;
        for (int x = 0; x < kCifarSide; ++x) {
          const int cx = flip ? kCifarSide - 1 - x : x;
          const int sx = cx + left - kPad;
          const bool inside =
              sy >= 0 && sy < kCifarSide && sx >= 0 && sx < kCifarSide;
          row[x] =
              inside ? lut_[c][src[c * kPlane + sy * kCifarSide + sx]] : zero;
        }
      }
    }
    return absl::OkStatus();
  }

  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  const std::string dir_;
  const Split split_;
  const bool augment_;
  const Cifar10Records records_;
  const std::vector<std::string> files_;
  const int64_t bytes_;
  float lut_[3][256];
};

}  // namespace

std::vector<std::string> Cifar10BatchNames(Split split) {
  if (split == Split::kTest) return {"test_batch.bin"};
  std::vector<std::string> names;
  for (int i = 1; i <= 5; ++i) {
    names.push_back(absl::StrCat("data_batch_", i, ".bin"));
  }
  return names;
}

std::string FindCifar10Directory(const std::string& dir) {
  auto holds_batches = [](const std::string& d) {
    return IsRegularFile(JoinPath(d, "data_batch_1.bin")) ||
           IsRegularFile(JoinPath(d, "test_batch.bin"));
  };
  if (holds_batches(dir)) return dir;
  std::string sub = JoinPath(dir, "cifar-10-batches-bin");
  if (holds_batches(sub)) return sub;
  return "";
}

absl::StatusOr<Cifar10Records> ReadCifar10Batch(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadPlainFile(path);
  if (!bytes.ok()) return bytes.status();
  if (bytes->size() % kCifarRecordBytes != 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: truncated or corrupt CIFAR-10 batch: %d bytes is not a multiple "
        "of the %d-byte record (1 label byte + 3072 pixel bytes)",
        path, bytes->size(), kCifarRecordBytes));
  }
  const size_t n = bytes->size() / kCifarRecordBytes;
  Cifar10Records records;
  records.labels.resize(n);
  records.pixels.resize(n * kCifarImageBytes);
  for (size_t r = 0; r < n; ++r) {
    const char* rec = bytes->data() + r * kCifarRecordBytes;
    const auto label = static_cast<uint8_t>(rec[0]);
    if (label > 9) {
      return absl::DataLossError(absl::StrFormat(
          "%s: record %d has label %d (CIFAR-10 labels are 0..9)", path, r,
          label));
    }
    records.labels[r] = label;
    std::copy(
        rec + 1, rec + kCifarRecordBytes,
        reinterpret_cast<char*>(records.pixels.data()) + r * kCifarImageBytes);
  }
  return records;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenCifar10Dataset(
    const std::string& dir, const DatasetOptions& options) {
  if (options.image_size != 0 && options.image_size != kCifarSide) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "image size %d: CIFAR-10 images are 32x32 (use image size 0 or 32)",
        options.image_size));
  }
  std::string base = FindCifar10Directory(dir);
  if (base.empty()) base = dir;
  std::vector<std::string> files;
  for (const std::string& name : Cifar10BatchNames(options.split)) {
    files.push_back(JoinPath(base, name));
  }
  Cifar10Records all;
  for (const std::string& file : files) {
    absl::StatusOr<Cifar10Records> part = ReadCifar10Batch(file);
    if (!part.ok()) return part.status();
    all.labels.insert(all.labels.end(), part->labels.begin(),
                      part->labels.end());
    all.pixels.insert(all.pixels.end(), part->pixels.begin(),
                      part->pixels.end());
  }
  if (all.labels.empty()) {
    return absl::DataLossError(absl::StrCat(files.front(), ": the ",
                                            SplitName(options.split),
                                            " split holds no records"));
  }
  absl::StatusOr<int64_t> bytes = TotalFileSize(files);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<Dataset>(new Cifar10Dataset(
      dir, options, std::move(all), std::move(files), *bytes));
}

}  // namespace powersweep
