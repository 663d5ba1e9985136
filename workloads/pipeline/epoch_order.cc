#include "workloads/pipeline/epoch_order.h"

#include <numeric>
#include <random>
#include <utility>

namespace powersweep {
namespace {

// Uniform integer in [0, bound] without modulo bias; bound < 2^31.
uint64_t UniformUpTo(std::mt19937_64& gen, uint64_t bound) {
  const uint64_t range = bound + 1;
  // Largest multiple of `range` that fits; draws at or above it are rejected.
  const uint64_t limit = (~uint64_t{0} / range) * range;
  while (true) {
    uint64_t x = gen();
    if (x < limit) return x % range;
  }
}

}  // namespace

std::vector<int32_t> EpochOrder(int32_t n, bool shuffle, uint64_t seed,
                                int64_t epoch) {
  std::vector<int32_t> order(n > 0 ? n : 0);
  std::iota(order.begin(), order.end(), 0);
  if (!shuffle) return order;
  std::mt19937_64 gen(seed + static_cast<uint64_t>(epoch));
  for (int32_t i = n - 1; i > 0; --i) {
    auto j = static_cast<int32_t>(UniformUpTo(gen, static_cast<uint64_t>(i)));
    std::swap(order[i], order[j]);
  }
  return order;
}

}  // namespace powersweep
