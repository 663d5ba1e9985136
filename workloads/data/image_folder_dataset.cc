#include "workloads/data/image_folder_dataset.h"

#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"
#include "workloads/data/image_ops.h"
#include "workloads/data/jpeg_codec.h"
#include "workloads/data/normalization.h"
#include "workloads/data/sample_rng.h"

namespace powersweep {
namespace {

constexpr int kMinImageSize = 8;

struct Listing {
  std::vector<std::string> files;
  std::vector<int> labels;
  int num_classes = 0;
};

class ImageFolderDataset : public Dataset {
 public:
  ImageFolderDataset(std::string dir, const DatasetOptions& options,
                     int image_size, Listing listing, int64_t bytes)
      : dir_(std::move(dir)),
        split_(options.split),
        augment_(options.augment && options.split == Split::kTrain),
        size_(image_size),
        resize_to_(static_cast<int>(std::lround(image_size * 256.0 / 224.0))),
        listing_(std::move(listing)),
        bytes_(bytes) {}

  std::string format() const override { return "image-folder"; }
  std::string path() const override { return dir_; }
  Split split() const override { return split_; }
  int64_t size() const override {
    return static_cast<int64_t>(listing_.files.size());
  }
  int num_classes() const override { return listing_.num_classes; }
  SampleShape shape() const override { return {3, size_, size_}; }
  int label(int64_t i) const override { return listing_.labels[i]; }

  absl::Status Load(int64_t i, uint64_t aug_seed, float* out) const override {
    if (i < 0 || i >= size()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: sample %d is outside 0..%d", dir_, i, size() - 1));
    }
    const std::string& path = listing_.files[i];
    absl::StatusOr<std::string> bytes = ReadPlainFile(path);
    if (!bytes.ok()) return bytes.status();
    absl::StatusOr<JpegHeader> header = ReadJpegHeader(path, *bytes);
    if (!header.ok()) return header.status();
    const Size2 scaled =
        ShorterSideResize(header->width, header->height, resize_to_);
    CropWindow window;
    bool flip = false;
    if (augment_) {
      SampleRng rng(aug_seed);
      window.y = static_cast<int>(rng.UniformInt(0, scaled.height - size_));
      window.x = static_cast<int>(rng.UniformInt(0, scaled.width - size_));
      window.width = window.height = size_;
      flip = rng.Coin();
    } else {
      window = CenterCrop(scaled, size_);
    }
    absl::StatusOr<DecodedImage> image = DecodeJpeg(path, *bytes, scaled);
    if (!image.ok()) return image.status();
    ResizedCropToChw(image->view(), scaled, window, flip, kImageNetStats, out);
    return absl::OkStatus();
  }

  const std::vector<std::string>& files() const override {
    return listing_.files;
  }
  bool reads_files_per_sample() const override { return true; }
  int64_t bytes_on_disk() const override { return bytes_; }

 private:
  const std::string dir_;
  const Split split_;
  const bool augment_;
  const int size_;
  const int resize_to_;
  const Listing listing_;
  const int64_t bytes_;
};

// Subfolder names of `dir`, sorted, hidden ones excepted.
absl::StatusOr<std::vector<std::string>> ClassFolders(const std::string& dir) {
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(dir);
  if (!names.ok()) return names.status();
  std::vector<std::string> folders;
  for (std::string& name : *names) {
    if (name[0] != '.' && IsDirectory(JoinPath(dir, name))) {
      folders.push_back(std::move(name));
    }
  }
  return folders;
}

absl::StatusOr<Listing> ListSplit(const std::string& dir, Split split) {
  const std::string train_dir = JoinPath(dir, "train");
  if (!IsDirectory(train_dir)) {
    return absl::NotFoundError(
        absl::StrCat(train_dir,
                     ": not found (an image folder data set has train/<class>/ "
                     "folders; the classes are their names)"));
  }
  absl::StatusOr<std::vector<std::string>> classes = ClassFolders(train_dir);
  if (!classes.ok()) return classes.status();
  if (classes->empty()) {
    return absl::DataLossError(
        absl::StrCat(train_dir, ": holds no class folders"));
  }
  const std::string split_dir = ImageFolderSplitDirectory(dir, split);
  if (!IsDirectory(split_dir)) {
    return absl::NotFoundError(
        absl::StrCat(split_dir,
                     ": not found (the test split of an image folder data set "
                     "is val/<class>/ or test/<class>/)"));
  }
  std::map<std::string, int> label_of;
  for (size_t k = 0; k < classes->size(); ++k) {
    label_of[(*classes)[k]] = static_cast<int>(k);
  }
  std::vector<std::string> folders = *classes;
  if (split == Split::kTest) {
    absl::StatusOr<std::vector<std::string>> test = ClassFolders(split_dir);
    if (!test.ok()) return test.status();
    for (const std::string& name : *test) {
      if (label_of.count(name) == 0) {
        return absl::DataLossError(
            absl::StrCat(JoinPath(split_dir, name), ": class folder '", name,
                         "' is not one of the ", classes->size(),
                         " classes of ", train_dir));
      }
    }
    folders = *std::move(test);
  }
  Listing listing;
  listing.num_classes = static_cast<int>(classes->size());
  for (const std::string& name : folders) {
    const std::string class_dir = JoinPath(split_dir, name);
    absl::StatusOr<std::vector<std::string>> files = ListDirectory(class_dir);
    if (!files.ok()) return files.status();
    size_t before = listing.files.size();
    for (const std::string& file : *files) {
      if (!IsJpegFileName(file)) continue;
      listing.files.push_back(JoinPath(class_dir, file));
      listing.labels.push_back(label_of[name]);
    }
    if (split == Split::kTrain && listing.files.size() == before) {
      return absl::DataLossError(
          absl::StrCat(class_dir, ": training class '", name,
                       "' holds no .jpg or .jpeg files"));
    }
  }
  if (listing.files.empty()) {
    return absl::DataLossError(
        absl::StrCat(split_dir, ": holds no .jpg or .jpeg files"));
  }
  return listing;
}

}  // namespace

bool LooksLikeImageFolder(const std::string& dir) {
  return IsDirectory(JoinPath(dir, "train"));
}

std::string ImageFolderSplitDirectory(const std::string& dir, Split split) {
  if (split == Split::kTrain) return JoinPath(dir, "train");
  const std::string val = JoinPath(dir, "val");
  const std::string test = JoinPath(dir, "test");
  return !IsDirectory(val) && IsDirectory(test) ? test : val;
}

bool IsJpegFileName(const std::string& name) {
  std::string lower = absl::AsciiStrToLower(name);
  return (absl::EndsWith(lower, ".jpg") && lower.size() > 4) ||
         (absl::EndsWith(lower, ".jpeg") && lower.size() > 5);
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenImageFolderDataset(
    const std::string& dir, const DatasetOptions& options) {
  const int64_t size =
      options.image_size == 0 ? kImageFolderDefaultSize : options.image_size;
  if (size < kMinImageSize || size > 8192) {
    return absl::InvalidArgumentError(
        absl::StrFormat("image size %d is outside %d..8192", options.image_size,
                        kMinImageSize));
  }
  absl::StatusOr<Listing> listing = ListSplit(dir, options.split);
  if (!listing.ok()) return listing.status();
  absl::StatusOr<int64_t> bytes = TotalFileSize(listing->files);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<Dataset>(new ImageFolderDataset(
      dir, options, static_cast<int>(size), *std::move(listing), *bytes));
}

}  // namespace powersweep
