// SampleRng: the random source of one sample's augmentation, and MixSeed,
// which derives independent seeds from several numbers.
//
// SampleRng wraps std::mt19937_64 (whose output sequence the C++ standard
// fixes) and draws integers by rejection sampling instead of through
// std::uniform_int_distribution (whose algorithm is left to the library),
// so the same seed gives the same draws on every platform and build.
// MixSeed is SplitMix64's finaliser applied to a running combination; equal
// inputs give equal outputs, and changing any input changes the result
// unpredictably. A SampleRng is not thread-safe; use one per sample.
#ifndef POWERSWEEP_WORKLOADS_DATA_SAMPLE_RNG_H_
#define POWERSWEEP_WORKLOADS_DATA_SAMPLE_RNG_H_

#include <cstdint>
#include <initializer_list>
#include <random>

namespace powersweep {

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A seed derived from every value of `parts`, in order.
inline uint64_t MixSeed(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x6a09e667f3bcc908ULL;
  for (uint64_t p : parts) h = SplitMix64(h ^ SplitMix64(p));
  return h;
}

class SampleRng {
 public:
  explicit SampleRng(uint64_t seed) : gen_(seed) {}

  // Uniform integer in [lo, hi] (hi >= lo).
  int64_t UniformInt(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    if (range == 0) return lo + static_cast<int64_t>(gen_());  // full range
    const uint64_t limit = (~uint64_t{0} / range) * range;
    while (true) {
      uint64_t x = gen_();
      if (x < limit) return lo + static_cast<int64_t>(x % range);
    }
  }

  // True with probability 1/2.
  bool Coin() { return (gen_() >> 63) != 0; }

  // Uniform in [0, 1).
  double Uniform01() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }

  uint64_t Next() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_SAMPLE_RNG_H_
