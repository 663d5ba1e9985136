// IdxDataset: one split of an MNIST-format IDX data set (idx_reader.h) as a
// Dataset: format "idx", 1 channel at the files' native rows x cols, 10
// classes, the whole split read into memory by OpenIdxDataset. Load
// normalises with the Fashion-MNIST statistics (mean 0.2860, std 0.3530)
// for any IDX set and never augments. Errors are idx_reader's;
// kInvalidArgument when options.image_size is neither 0 nor the native
// square size. Immutable after opening; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_IDX_DATASET_H_
#define POWERSWEEP_WORKLOADS_DATA_IDX_DATASET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "workloads/data/dataset.h"

namespace powersweep {

// True when `dir` holds the images file of either split (plain or .gz).
bool LooksLikeIdxDataset(const std::string& dir);

absl::StatusOr<std::unique_ptr<Dataset>> OpenIdxDataset(
    const std::string& dir, const DatasetOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_IDX_DATASET_H_
