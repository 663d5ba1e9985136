// Helpers shared by the data set tests (header only; the test binary is a
// glob of *_test.cc): generating a set into a directory, loading samples,
// undoing the normalisation.
#ifndef POWERSWEEP_TESTS_WORKLOADS_DATA_DATA_TEST_HELPERS_H_
#define POWERSWEEP_TESTS_WORKLOADS_DATA_DATA_TEST_HELPERS_H_

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/normalization.h"

namespace powersweep::testing {

inline GenerateOptions SmallSet(const std::string& format,
                                const std::string& out_dir) {
  GenerateOptions o;
  o.format = format;
  o.out_dir = out_dir;
  o.train_count = 40;
  o.test_count = 12;
  o.classes = 4;
  o.seed = 3;
  if (format == "image-folder") o.image_size = 64;
  return o;
}

inline absl::StatusOr<std::unique_ptr<Dataset>> Open(const std::string& dir,
                                                     Split split,
                                                     bool augment = true,
                                                     int64_t image_size = 0) {
  DatasetOptions o;
  o.split = split;
  o.augment = augment;
  o.image_size = image_size;
  return OpenDataset(dir, o);
}

// Sample i as Load writes it; empty on error (the test then fails on size).
inline std::vector<float> LoadSample(const Dataset& d, int64_t i,
                                     uint64_t seed) {
  std::vector<float> out(d.shape().numel());
  if (!d.Load(i, seed, out.data()).ok()) return {};
  return out;
}

// The 0..255 pixel value a normalised float stands for.
inline float Denormalise(const ChannelStats& s, int c, float v) {
  return (v * s.std[c] + s.mean[c]) * 255.0f;
}

inline double MaxAbsDiff(const std::vector<float>& a,
                         const std::vector<float>& b) {
  if (a.size() != b.size()) return 1e30;
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  }
  return m;
}

}  // namespace powersweep::testing

#endif  // POWERSWEEP_TESTS_WORKLOADS_DATA_DATA_TEST_HELPERS_H_
