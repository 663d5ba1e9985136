#include "agent/platform/twin/twin_random.h"

#include <cmath>

namespace powersweep {
namespace {

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t MixSeed(uint64_t a, uint64_t b) {
  return SplitMix(SplitMix(a) ^ (b + 0x632be59bd9b4e019ULL));
}

uint64_t HashString(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t TwinRng::Next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double TwinRng::Uniform() {
  // 53 random bits, shifted off 0.
  return (static_cast<double>(Next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double TwinRng::Symmetric() { return 2 * Uniform() - 1; }

double TwinRng::Normal() {
  const double u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

double TwinRng::LogNormalUnitMean(double sigma) {
  if (sigma <= 0) return 1.0;
  return std::exp(sigma * Normal() - sigma * sigma / 2);
}

InstanceVariation VariationFor(uint64_t seed, const std::string& device_class,
                               int64_t instance) {
  TwinRng rng(MixSeed(MixSeed(seed, HashString(device_class)),
                      static_cast<uint64_t>(instance)));
  InstanceVariation v;
  v.speed = 1 + kSpeedSpread * rng.Symmetric();
  v.static_power = 1 + kStaticPowerSpread * rng.Symmetric();
  v.ambient_c = kAmbientC + kAmbientSpreadC * rng.Symmetric();
  return v;
}

}  // namespace powersweep
