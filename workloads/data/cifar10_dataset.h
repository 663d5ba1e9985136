// Cifar10Dataset: one split of a CIFAR-10 binary-format data set as a
// Dataset (format "cifar10", 3x32x32, 10 classes, read into memory by
// OpenCifar10Dataset).
//
// Layout: DIR (or DIR/cifar-10-batches-bin, as the official archive
// unpacks) holds data_batch_1.bin .. data_batch_5.bin (the training split,
// all five required, read in that order) and test_batch.bin (the test
// split); batches.meta.txt is optional and not read. Each file is a
// sequence of 3073-byte records: one label byte (0..9), then 1024 red,
// 1024 green and 1024 blue bytes of a 32x32 image, rows top to bottom.
//
// Load normalises with the CIFAR-10 channel statistics (mean 0.4914,
// 0.4822, 0.4465; std 0.2470, 0.2435, 0.2616). Training augmentation (split
// kTrain with options.augment): pad 4 pixels of value 0 on every side, take
// a random 32x32 crop, then mirror it with probability 1/2 (torchvision's
// RandomCrop(32, padding=4) + RandomHorizontalFlip); the draws, in order:
// top offset 0..8, left offset 0..8, flip, from SampleRng(aug_seed).
//
// Errors name the file: kNotFound for a missing batch, kDataLoss for a size
// that is not a multiple of 3073, a label above 9 or an empty split;
// kInvalidArgument for an image size other than 0 or 32. Immutable after
// opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_CIFAR10_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_CIFAR10_DATASET_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr int kCifarSide = 32;
inline constexpr int kCifarImageBytes = 3 * kCifarSide * kCifarSide;
inline constexpr int kCifarRecordBytes = 1 + kCifarImageBytes;

// The batch file names of a split, in reading order.
std::vector<std::string> Cifar10BatchNames(Split split);

// The directory holding the batch files: `dir` when it holds
// data_batch_1.bin or test_batch.bin, else dir/cifar-10-batches-bin when
// that does; empty when neither.
std::string FindCifar10Directory(const std::string& dir);

// Records of one batch file, checked (sizes, labels).
struct Cifar10Records {
  std::vector<uint8_t> labels;
  std::vector<uint8_t> pixels;  // labels.size() * 3072, planar R, G, B
};
absl::StatusOr<Cifar10Records> ReadCifar10Batch(const std::string& path);

absl::StatusOr<std::unique_ptr<Dataset>> OpenCifar10Dataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_CIFAR10_DATASET_H_
