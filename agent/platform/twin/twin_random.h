// Deterministic randomness for the twin: a SplitMix64 stream (the same
// numbers on every platform and standard library, unlike <random>
// distributions), seed mixing, and the per-instance variation of a twin.
//
// TwinRng is a value type, not thread-safe (one per simulation);
// everything else is pure.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_RANDOM_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_RANDOM_H_

#include <cstdint>
#include <string>

namespace powersweep {

// Mixes values into one 64-bit seed (order matters).
uint64_t MixSeed(uint64_t a, uint64_t b);
uint64_t HashString(const std::string& s);

class TwinRng {
 public:
  explicit TwinRng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  double Uniform();        // in (0, 1)
  double Symmetric();      // in (-1, 1)
  double Normal();         // standard normal (Box-Muller)
  // exp(sigma * N - sigma^2 / 2): lognormal with mean 1.
  double LogNormalUnitMean(double sigma);

 private:
  uint64_t state_;
};

// How one twin instance differs from the class's nominal device: a
// speed factor (times are divided by it) and a static-power factor, each
// drawn uniformly within +-spread from (seed, class, instance).
// The instance also has its own ambient temperature (ambient_c, the
// board's idle temperature before its own heat), drawn within
// +-kAmbientSpreadC of kAmbientC.
struct InstanceVariation {
  double speed = 1.0;
  double static_power = 1.0;
  double ambient_c = 25.0;
};

inline constexpr double kSpeedSpread = 0.03;
inline constexpr double kStaticPowerSpread = 0.05;
inline constexpr double kAmbientC = 25.0;
inline constexpr double kAmbientSpreadC = 2.0;

InstanceVariation VariationFor(uint64_t seed, const std::string& device_class,
                               int64_t instance);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_TWIN_RANDOM_H_
