// ImageDataset: a labelled set of single-channel 8-bit images held in
// memory, as read from IDX files (see idx_reader.h).
//
// Invariants (established by the reader): pixels.size() ==
// count * rows * cols, laid out image-major then row-major (N, H, W);
// labels.size() == count; every label < num_classes. Immutable after
// loading, so any number of threads may read it concurrently.
#ifndef POWERSWEEP_WORKLOADS_DATA_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_DATASET_H_

#include <cstdint>
#include <string>
#include <vector>

namespace powersweep {

struct ImageDataset {
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

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_DATASET_H_
