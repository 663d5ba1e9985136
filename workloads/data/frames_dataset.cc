#include "workloads/data/frames_dataset.h"

#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/frames_format.h"

namespace powersweep {
namespace {

class FramesDataset : public Dataset {
 public:
  FramesDataset(std::string dir, std::string file, Split split,
                FramesHeader header, std::string bytes,
                std::vector<int> labels)
      : dir_(std::move(dir)),
        split_(split),
        header_(header),
        bytes_(std::move(bytes)),
        labels_(std::move(labels)),
        files_{std::move(file)} {
    for (int v = 0; v < 256; ++v) lut_[v] = v / 255.0f;
  }

  std::string format() const override { return "frames"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override { return header_.count; }
  int num_classes() const override {
    return static_cast<int>(6 * header_.actions);
  }
  int model_outputs() const override {
    return static_cast<int>(header_.actions);
  }
  SampleShape shape() const override {
    return {header_.stack + 1, header_.height, header_.width};
  }
  int label(int64_t i) const override { return labels_[i]; }

  absl::Status Load(int64_t i, uint64_t /*aug_seed*/,
                    float* out) const override {
    if (i < 0 || i >= header_.count) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: sample %d is outside 0..%d", files_[0], i,
                          header_.count - 1));
    }
    const uint8_t* src = reinterpret_cast<const uint8_t*>(
        bytes_.data() + kFramesHeaderBytes + i * header_.record_bytes() +
        kFramesRecordPrefix);
    const int64_t n = shape().numel();
    for (int64_t p = 0; p < n; ++p) out[p] = lut_[src[p]];
    return absl::OkStatus();
  }

  const std::vector<std::string>& files() const override { return files_; }
  bool reads_files_per_sample() const override { return false; }
  int64_t bytes_on_disk() const override {
    return static_cast<int64_t>(bytes_.size());
  }

 private:
  const std::string dir_;
  const Split split_;
  const FramesHeader header_;
  const std::string bytes_;
  const std::vector<int> labels_;
  const std::vector<std::string> files_;
  std::array<float, 256> lut_;
};

}  // namespace

bool LooksLikeFramesDataset(const std::string& dir) {
  return IsRegularFile(JoinPath(dir, FramesFileName(Split::kTrain))) ||
         IsRegularFile(JoinPath(dir, FramesFileName(Split::kTest)));
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenFramesDataset(
    const std::string& dir, const DatasetOptions& options) {
  const std::string file = JoinPath(dir, FramesFileName(options.split));
  absl::StatusOr<std::string> bytes = ReadPlainFile(file);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<FramesHeader> h = ParseFramesHeader(*bytes, file);
  if (!h.ok()) return h.status();
  if (options.image_size != 0 &&
      (options.image_size != h->height || options.image_size != h->width)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "image size %d: %s holds %dx%d frames and frames data sets are "
        "served at their native size (use image size 0)",
        options.image_size, file, h->height, h->width));
  }
  std::vector<int> labels(h->count);
  for (int64_t i = 0; i < h->count; ++i) {
    const char* r = bytes->data() + kFramesHeaderBytes + i * h->record_bytes();
    Transition t;
    t.action = static_cast<uint8_t>(r[0]);
    t.reward = static_cast<int8_t>(r[1]);
    const int done = static_cast<uint8_t>(r[2]);
    if (t.action >= h->actions || t.reward < -1 || t.reward > 1 ||
        done > 1) {
      return absl::DataLossError(absl::StrFormat(
          "%s: record %d is corrupt: action %d (the game has %d), reward %d "
          "(must be -1, 0 or +1), done %d (must be 0 or 1)",
          file, i, t.action, h->actions, t.reward, done));
    }
    t.done = done == 1;
    labels[i] = static_cast<int>(EncodeTransition(t, h->actions));
  }
  const FramesHeader header = *h;
  return std::unique_ptr<Dataset>(new FramesDataset(
      dir, file, options.split, header, *std::move(bytes), std::move(labels)));
}

}  // namespace powersweep
