#include "workloads/data/idx_dataset.h"

#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_util.h"
#include "workloads/data/idx_reader.h"
#include "workloads/data/normalization.h"

namespace powersweep {
namespace {

class IdxDataset : public Dataset {
 public:
  IdxDataset(std::string dir, Split split, IdxImages data, int64_t bytes)
      : dir_(std::move(dir)),
        split_(split),
        data_(std::move(data)),
        files_{data_.images_path, data_.labels_path},
        bytes_(bytes) {
    for (int v = 0; v < 256; ++v) lut_[v] = kFashionMnistStats.Apply(0, v);
  }

  std::string format() const override { return "idx"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override { return data_.count; }
  int num_classes() const override { return data_.num_classes; }
  SampleShape shape() const override { return {1, data_.rows, data_.cols}; }
  int label(int64_t i) const override { return data_.labels[i]; }

  absl::Status Load(int64_t i, uint64_t /*aug_seed*/,
                    float* out) const override {
    if (i < 0 || i >= data_.count) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: sample %d is outside 0..%d", data_.images_path,
                          i, data_.count - 1));
    }
    const uint8_t* src = data_.image(i);
    const int64_t n = data_.pixels_per_image();
    for (int64_t p = 0; p < n; ++p) out[p] = lut_[src[p]];
    return absl::OkStatus();
  }

  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  const std::string dir_;
  const Split split_;
  const IdxImages data_;
  const std::vector<std::string> files_;
  const int64_t bytes_;
  std::array<float, 256> lut_;
};

}  // namespace

bool LooksLikeIdxDataset(const std::string& dir) {
  for (Split split : {Split::kTrain, Split::kTest}) {
    if (FindIdxFile(dir,
                    absl::StrCat(IdxSplitPrefix(split), "-images-idx3-ubyte"))
            .ok()) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenIdxDataset(
    const std::string& dir, const DatasetOptions& options) {
  absl::StatusOr<IdxImages> data = LoadIdxSplit(dir, options.split);
  if (!data.ok()) return data.status();
  if (options.image_size != 0 &&
      (options.image_size != data->rows || options.image_size != data->cols)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "image size %d: %s holds %dx%d images and IDX data sets are served "
        "at their native size (use image size 0)",
        options.image_size, data->images_path, data->rows, data->cols));
  }
  absl::StatusOr<int64_t> bytes =
      TotalFileSize({data->images_path, data->labels_path});
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<Dataset>(
      new IdxDataset(dir, options.split, *std::move(data), *bytes));
}

}  // namespace powersweep
