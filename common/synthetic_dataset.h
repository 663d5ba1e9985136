// The `synthetic` data set: random tensors of a model's input shape, made
// once in memory by the workload, no I/O (the synthetic mode of
// tf_cnn_benchmarks that the CLOSER'18 study compares with real data).
// Every agent offers it for every model without a --dataset flag; the
// controller's catalog accepts MODEL/synthetic for every model; the agent
// passes it to the workload as `--dataset-path synthetic` (a reserved word,
// not a directory: a directory of that name is given as ./synthetic), and
// a container run mounts nothing for it. Twins cost it with no data
// loading at all.
#ifndef POWERSWEEP_COMMON_SYNTHETIC_DATASET_H_
#define POWERSWEEP_COMMON_SYNTHETIC_DATASET_H_

#include <string_view>

namespace powersweep {

// The data set name in sweep files and catalogs, and the --dataset-path
// value that selects it.
inline constexpr std::string_view kSyntheticDataset = "synthetic";

inline bool IsSyntheticDataset(std::string_view name) {
  return name == kSyntheticDataset;
}

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_SYNTHETIC_DATASET_H_
