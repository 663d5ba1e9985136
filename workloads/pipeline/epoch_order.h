// EpochOrder: the order in which one epoch visits the samples of a dataset.
//
// EpochOrder(n, shuffle=false, ...) is 0, 1, ..., n-1 (inference).
// EpochOrder(n, shuffle=true, seed, epoch) is a permutation of 0..n-1
// produced by a Fisher-Yates shuffle driven by std::mt19937_64 seeded with
// seed + epoch, with an exact (rejection-sampled) uniform draw, so the same
// (n, seed, epoch) gives the same order on every platform and build.
// Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_
#define POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_

#include <cstdint>
#include <vector>

namespace powersweep {

std::vector<int32_t> EpochOrder(int32_t n, bool shuffle, uint64_t seed,
                                int64_t epoch);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_
