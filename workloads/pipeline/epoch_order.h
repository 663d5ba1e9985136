// EpochOrder: the order in which one epoch visits the samples of a dataset.
//
// EpochOrder(n, shuffle=false, ...) is 0, 1, ..., n-1 (inference).
// EpochOrder(n, shuffle=true, seed, epoch) is a permutation of 0..n-1
// produced by a Fisher-Yates shuffle driven by std::mt19937_64 seeded with
// seed + epoch, with an exact (rejection-sampled) uniform draw, so the same
// (n, seed, epoch) gives the same order on every platform and build.
//
// SampleAugmentationSeed(seed, epoch, position) is the augmentation seed of
// the sample at `position` (0-based) of epoch `epoch`'s order: a mix of the
// three numbers (sample_rng.h's MixSeed), so a sample's crop and flip depend
// on the run's seed and where it falls in the run, never on which loader
// worker builds it, and differ between epochs.
// Stateless and thread-safe.
#ifndef POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_
#define POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_

#include <cstdint>
#include <vector>

#include "workloads/data/sample_rng.h"

namespace powersweep {

std::vector<int32_t> EpochOrder(int32_t n, bool shuffle, uint64_t seed,
                                int64_t epoch);

inline uint64_t SampleAugmentationSeed(uint64_t seed, int64_t epoch,
                                       int64_t position) {
  return MixSeed(
      {seed, static_cast<uint64_t>(epoch), static_cast<uint64_t>(position)});
}

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_PIPELINE_EPOCH_ORDER_H_
