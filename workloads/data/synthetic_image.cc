// The synthetic samples of dataset_generator.h: class looks, per-sample
// variation and the painting itself.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "absl/strings/str_format.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/sample_rng.h"

namespace powersweep {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kWaveSteps = 4096;
constexpr uint64_t kClassSalt = 0x636c617373ULL;  // "class"
constexpr uint64_t kNamesSalt = 0x6e616d6573ULL;  // "names"

// 0.5 + 0.5 * sin(2 pi k / kWaveSteps).
const std::array<float, kWaveSteps>& Wave() {
  static const std::array<float, kWaveSteps> wave = [] {
    std::array<float, kWaveSteps> w{};
    for (int k = 0; k < kWaveSteps; ++k) {
      w[k] = static_cast<float>(0.5 + 0.5 * std::sin(2 * kPi * k / kWaveSteps));
    }
    return w;
  }();
  return wave;
}

// What every image of a class shares.
struct ClassLook {
  std::array<float, 3> a{};  // colour at the wave's trough
  std::array<float, 3> b{};  // colour at the wave's crest
  double angle = 0;          // stripe direction, radians
  double freq = 0;           // stripes per shorter side
};

ClassLook LookOf(uint64_t seed, int cls) {
  SampleRng rng(MixSeed({seed, kClassSalt, static_cast<uint64_t>(cls)}));
  ClassLook look;
  float contrast = 0;
  for (int c = 0; c < 3; ++c) {
    look.a[c] = static_cast<float>(rng.UniformInt(0, 255));
    look.b[c] = static_cast<float>(rng.UniformInt(0, 255));
    contrast += std::fabs(look.a[c] - look.b[c]);
  }
  if (contrast < 150) {  // keep the stripes visible
    for (int c = 0; c < 3; ++c) look.b[c] = 255 - look.a[c];
  }
  // Golden-ratio spacing spreads the classes' angles evenly.
  const double spread = std::fmod(cls * 0.6180339887498949, 1.0);
  look.angle = kPi * spread;
  look.freq = 1.5 + 4.5 * rng.Uniform01();
  return look;
}

// Paints the stripes plus noise into an interleaved width x height image.
// The wave position is 32.32 fixed point, stepped per pixel; the stripes'
// phase is anchored at the image centre, so centre crops of images of
// different shapes look alike.
template <int kChannels>
void Paint(const std::array<float, 3>& a, const std::array<float, 3>& b,
           const std::array<float, 3>& jitter,
           const std::array<float, kWaveSteps>& wave, int64_t t0, int64_t dx,
           int64_t dy, int width, int height, uint64_t noise, uint8_t* out) {
  std::array<float, 3> base{}, span{};
  for (int c = 0; c < kChannels; ++c) {
    base[c] =
        a[c] + jitter[c] - 10.0f + 0.5f;  // -10: noise offset, +0.5: rounding
    span[c] = b[c] - a[c];
  }
  for (int y = 0; y < height; ++y) {
    int64_t t = t0 + (2 * y - height) / 2 * dy - width / 2 * dx;
    for (int x = 0; x < width; ++x, t += dx) {
      const float m = wave[(t >> 32) & (kWaveSteps - 1)];
      noise ^= noise >> 12;  // xorshift64*: one draw gives every channel
      noise ^= noise << 25;
      noise ^= noise >> 27;
      uint64_t bits = noise * 0x2545f4914f6cdd1dULL;
      for (int c = 0; c < kChannels; ++c, bits >>= 8) {
        // Uniform integer noise in 0..20 (shifted by -10 in base).
        const auto n = static_cast<float>(((bits & 0xff) * 21) >> 8);
        const float v = base[c] + span[c] * m + n;
        *out++ = static_cast<uint8_t>(v <= 0.0f     ? 0.0f
                                      : v >= 255.0f ? 255.0f
                                                    : v);
      }
    }
  }
}

}  // namespace

SyntheticSample SynthesizeSample(const GenerateOptions& options, Split split,
                                 int64_t index) {
  SyntheticSample s;
  s.label = static_cast<int>(index % options.classes);
  SampleRng rng(MixSeed({options.seed, static_cast<uint64_t>(split),
                         static_cast<uint64_t>(index)}));
  const int side = static_cast<int>(options.image_size);
  s.width = s.height = side;
  s.channels = options.format == "idx" ? 1 : 3;
  if (options.format == "image-folder") {
    const int longer = side + static_cast<int>(rng.UniformInt(0, side / 2));
    if (rng.Coin()) {
      s.width = longer;
    } else {
      s.height = longer;
    }
  }
  const ClassLook look = LookOf(options.seed, s.label);
  const double angle = look.angle + (rng.Uniform01() - 0.5) * 0.1;
  const double freq = look.freq * (1 + (rng.Uniform01() - 0.5) * 0.2);
  const double phase = (rng.Uniform01() - 0.5) * 0.2;  // cycles
  std::array<float, 3> jitter{};
  for (float& j : jitter) j = static_cast<float>(rng.UniformInt(-12, 12));
  uint64_t noise = rng.Next() | 1;

  // Grey images use the luminance of the class colours.
  std::array<float, 3> a = look.a, b = look.b;
  if (s.channels == 1) {
    a[0] = 0.299f * a[0] + 0.587f * a[1] + 0.114f * a[2];
    b[0] = 0.299f * b[0] + 0.587f * b[1] + 0.114f * b[2];
    if (std::fabs(a[0] - b[0]) < 60)
      b[0] = a[0] < 128 ? a[0] + 120 : a[0] - 120;
  }
  const std::array<float, kWaveSteps>& wave = Wave();
  const double scale = freq / std::min(s.width, s.height) * kWaveSteps;
  // Wave position in 32.32 fixed point, stepped per pixel (no floor).
  constexpr double kFixed = 4294967296.0;
  const auto dx = static_cast<int64_t>(std::cos(angle) * scale * kFixed);
  const auto dy = static_cast<int64_t>(std::sin(angle) * scale * kFixed);
  const auto t0 = static_cast<int64_t>(phase * kWaveSteps * kFixed);
  s.pixels.resize(static_cast<size_t>(s.width) * s.height * s.channels);
  if (s.channels == 3) {
    Paint<3>(a, b, jitter, wave, t0, dx, dy, s.width, s.height, noise,
             s.pixels.data());
  } else {
    Paint<1>(a, b, jitter, wave, t0, dx, dy, s.width, s.height, noise,
             s.pixels.data());
  }
  return s;
}

std::vector<std::string> GeneratedClassNames(const GenerateOptions& options) {
  SampleRng rng(MixSeed({options.seed, kNamesSalt}));
  std::set<int64_t> ids;
  while (static_cast<int>(ids.size()) < options.classes) {
    ids.insert(rng.UniformInt(0, 999999));
  }
  std::vector<std::string> names;
  for (int64_t id : ids) names.push_back(absl::StrFormat("%06d", id));
  return names;
}

std::string GeneratedImagePath(const GenerateOptions& options,
                               const std::vector<std::string>& class_names,
                               Split split, int64_t index) {
  const int label = static_cast<int>(index % options.classes);
  const uint64_t name = MixSeed({options.seed, static_cast<uint64_t>(split),
                                 static_cast<uint64_t>(index), 0x66696c65});
  return absl::StrFormat("%s/%s/%016x.jpg",
                         split == Split::kTrain ? "train" : "val",
                         class_names[label], name);
}

}  // namespace powersweep
