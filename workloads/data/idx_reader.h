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
// never kInvalidArgument (reserved for bad arguments, e.g. an unknown split).
// Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_
#define POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr uint32_t kIdxImagesMagic = 0x00000803;
inline constexpr uint32_t kIdxLabelsMagic = 0x00000801;

// Reads an images file; the result has count, rows, cols, pixels and
// images_path set (labels empty).
absl::StatusOr<ImageDataset> ReadIdxImages(const std::string& path);

// Reads a labels file; every label must be < num_classes.
absl::StatusOr<std::vector<uint8_t>> ReadIdxLabels(const std::string& path,
                                                   int num_classes = 10);

// Loads one split from `dir`: "train" reads train-images-idx3-ubyte and
// train-labels-idx1-ubyte, "test" reads t10k-*; each name is tried with a
// ".gz" suffix first, then without. The image and label counts must match.
// An unknown split is kInvalidArgument naming the split.
absl::StatusOr<ImageDataset> LoadIdxDataset(const std::string& dir,
                                            const std::string& split);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_IDX_READER_H_
