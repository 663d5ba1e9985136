// Readers for MNIST-format IDX files (plain or gzipped), as shipped by the
// Debian package dataset-fashion-mnist in /usr/share/datasets/fashion-mnist:
//   {train,t10k}-images-idx3-ubyte(.gz)  magic 0x00000803, N x rows x cols u8
//   {train,t10k}-labels-idx1-ubyte(.gz)  magic 0x00000801, N u8
// All header integers are big-endian.
//
// Every check failure is an error naming the file and the reason: wrong
// magic, zero or oversized dimensions, a file holding fewer or more bytes
// than its header announces, a label outside 0..num_classes-1, image and
// label counts that differ, a missing file. Codes: kNotFound (missing
// file), kDataLoss (corrupt content), kPermissionDenied; a file problem is
// never kInvalidArgument. Stateless and thread-safe.
//
// IdxDataset (idx_dataset.h) serves these as a Dataset.
#ifndef POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_
#define POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

// The raw content of an IDX image + label pair. Invariants (established by
// the reader): pixels.size() == count * rows * cols, laid out image-major
// then row-major (N, H, W); labels.size() == count (after LoadIdxSplit);
// every label < num_classes.
struct IdxImages {
  int64_t count = 0;
  int rows = 0;
  int cols = 0;
  int num_classes = 10;
  std::vector<uint8_t> pixels;
  std::vector<uint8_t> labels;
  std::string images_path;  // where the data came from, for messages
  std::string labels_path;

  int64_t pixels_per_image() const { return int64_t{rows} * cols; }
  const uint8_t* image(int64_t i) const {
    return pixels.data() + i * pixels_per_image();
  }
};

inline constexpr uint32_t kIdxImagesMagic = 0x00000803;
inline constexpr uint32_t kIdxLabelsMagic = 0x00000801;

// Reads an images file; the result has count, rows, cols, pixels and
// images_path set (labels empty).
absl::StatusOr<IdxImages> ReadIdxImages(const std::string& path);

// Reads a labels file; every label must be < num_classes.
absl::StatusOr<std::vector<uint8_t>> ReadIdxLabels(const std::string& path,
                                                   int num_classes = 10);

// The base name of a split's files: "train" for kTrain, "t10k" for kTest.
const char* IdxSplitPrefix(Split split);

// `dir`/`name`.gz if it exists, else `dir`/`name` if it exists, else
// kNotFound naming both.
absl::StatusOr<std::string> FindIdxFile(const std::string& dir,
                                        const std::string& name);

// Loads one split from `dir`: kTrain reads train-images-idx3-ubyte and
// train-labels-idx1-ubyte, kTest reads t10k-*; each name is tried with a
// ".gz" suffix first, then without. The image and label counts must match.
absl::StatusOr<IdxImages> LoadIdxSplit(const std::string& dir, Split split);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_
