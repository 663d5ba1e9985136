// ImageFolderDataset: one split of a folder-per-class set of JPEG files
// (the ImageNet / GLD23k layout) as a Dataset, format "image-folder":
//
//   DIR/train/<class>/*.jpg|*.jpeg (any letter case)  training split
//   DIR/val/<class>/...  (or DIR/test/<class>/... when there is no val/)
//
// The classes are the sorted (bytewise) names of train/'s subfolders,
// hidden ones (".x") excepted, and label k is the k-th name. The test
// split's class folders must carry names of train/'s classes; a class may
// be missing there. Samples are ordered by class, then by file name; other
// files are ignored. Every training class must hold at least one JPEG.
// Opening only lists and stats the files; Load reads and decodes one file
// (reads_files_per_sample() is true).
//
// Load, for a sample size S (options.image_size, default 224): decode
// (jpeg_codec.h, at a reduced DCT scale when the image is much larger than
// needed; grey JPEGs become 3 equal channels), resize the shorter side to
// round(S * 256 / 224) keeping the aspect ratio (image_ops.h), then for
// training with augmentation take a random S x S crop and mirror it with
// probability 1/2 (draws from SampleRng(aug_seed): top, left, flip),
// otherwise the center S x S crop; normalise with the ImageNet statistics
// (mean 0.485, 0.456, 0.406; std 0.229, 0.224, 0.225) into 3 x S x S.
//
// Errors name the file or folder: kNotFound (missing train/ or split
// folder, a file gone since opening), kDataLoss (a corrupt or truncated
// JPEG, an empty training class, a test class unknown to train/),
// kInvalidArgument (image size < 8). Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_IMAGE_FOLDER_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_IMAGE_FOLDER_DATASET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr int kImageFolderDefaultSize = 224;

// True when DIR/train is a directory.
bool LooksLikeImageFolder(const std::string& dir);

// The split's folder: DIR/train, or DIR/val (DIR/test when val is absent).
std::string ImageFolderSplitDirectory(const std::string& dir, Split split);

// True for names ending in .jpg or .jpeg, in any letter case.
bool IsJpegFileName(const std::string& name);

absl::StatusOr<std::unique_ptr<Dataset>> OpenImageFolderDataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_IMAGE_FOLDER_DATASET_H_
