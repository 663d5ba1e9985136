#include "workloads/data/image_ops.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace powersweep {
namespace {

// The input taps of a run of output positions along one axis.
struct AxisTaps {
  std::vector<int> first;     // first input index of each output position
  std::vector<int> count;     // number of taps of each output position
  int stride = 0;             // weights per output position
  std::vector<float> weight;  // stride weights per output position
};

float Triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? static_cast<float>(1.0 - x) : 0.0f;
}

// Taps of output positions first_out .. first_out + n - 1 when `in` samples
// are resized to `out` (PIL's bilinear coefficients: triangle filter whose
// support grows with the shrink factor, weights normalised to sum 1).
AxisTaps ComputeTaps(int in, int out, int first_out, int n) {
  const double scale = static_cast<double>(in) / out;
  const double filterscale = std::max(scale, 1.0);
  const double support = filterscale;  // bilinear support 1, scaled
  AxisTaps taps;
  taps.stride = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(n);
  taps.count.resize(n);
  taps.weight.assign(static_cast<size_t>(n) * taps.stride, 0.0f);
  for (int i = 0; i < n; ++i) {
    const double center = (first_out + i + 0.5) * scale;
    int lo = static_cast<int>(center - support + 0.5);
    lo = std::max(lo, 0);
    int hi = std::min(static_cast<int>(center + support + 0.5), in);
    int count = std::max(hi - lo, 1);
    if (lo + count > in) lo = in - count;
    count = std::min(count, taps.stride);
    float* w = &taps.weight[static_cast<size_t>(i) * taps.stride];
    float sum = 0;
    for (int k = 0; k < count; ++k) {
      w[k] = Triangle((lo + k - center + 0.5) / filterscale);
      sum += w[k];
    }
    if (sum > 0) {
      for (int k = 0; k < count; ++k) w[k] /= sum;
    } else {
      w[0] = 1.0f;  // degenerate: nearest input sample
    }
    // Drop zero-weight taps at either end (at scale 1 only one is left).
    while (count > 1 && w[count - 1] == 0.0f) --count;
    int lead = 0;
    while (lead < count - 1 && w[lead] == 0.0f) ++lead;
    if (lead > 0) {
      for (int k = 0; k + lead < count; ++k) w[k] = w[k + lead];
      lo += lead;
      count -= lead;
    }
    taps.first[i] = lo;
    taps.count[i] = count;
  }
  return taps;
}

// Python's round() of x / 2: round half to even.
int HalfRoundedEven(int x) {
  if (x % 2 == 0) return x / 2;
  const int down = x / 2;  // x >= 0 here
  return down % 2 == 0 ? down : down + 1;
}

}  // namespace

Size2 ShorterSideResize(int width, int height, int shorter) {
  if (width <= height) {
    return {shorter,
            static_cast<int>(static_cast<int64_t>(shorter) * height / width)};
  }
  return {static_cast<int>(static_cast<int64_t>(shorter) * width / height),
          shorter};
}

CropWindow CenterCrop(Size2 size, int crop) {
  return {HalfRoundedEven(size.width - crop),
          HalfRoundedEven(size.height - crop), crop, crop};
}

namespace {

// Horizontal pass into planar scratch rows (c, row, x), mirrored when
// `flip`; then a vertical pass that is a weighted sum of whole rows
// (contiguous, vectorisable), normalised on the way out.
template <int kChannels>
void ResizeCropPlanar(const ImageView& src, const AxisTaps& xt,
                      const AxisTaps& yt, const CropWindow& window, bool flip,
                      const ChannelStats& stats, float* out) {
  const int row0 = yt.first.front();
  int row_end = 0;
  for (int i = 0; i < window.height; ++i) {
    row_end = std::max(row_end, yt.first[i] + yt.count[i]);
  }
  const int rows = row_end - row0;
  const int w_out = window.width;
  const size_t plane_rows = static_cast<size_t>(rows) * w_out;
  // Per-thread scratch, kept between calls: a fresh buffer of this size
  // would be mapped and page-faulted on every call.
  thread_local std::vector<float> scratch;
  scratch.resize(std::max(scratch.size(), plane_rows * kChannels));
  float* const tmp = scratch.data();
  for (int r = 0; r < rows; ++r) {
    const uint8_t* srow =
        src.pixels + static_cast<size_t>(r + row0) * src.width * kChannels;
    for (int x = 0; x < w_out; ++x) {
      const float* w = &xt.weight[static_cast<size_t>(x) * xt.stride];
      const uint8_t* s = srow + static_cast<size_t>(xt.first[x]) * kChannels;
      float acc[kChannels] = {};
      for (int k = 0; k < xt.count[x]; ++k) {
        for (int c = 0; c < kChannels; ++c)
          acc[c] += w[k] * s[k * kChannels + c];
      }
      const int ox = flip ? w_out - 1 - x : x;
      for (int c = 0; c < kChannels; ++c) {
        tmp[c * plane_rows + static_cast<size_t>(r) * w_out + ox] = acc[c];
      }
    }
  }
  const size_t plane = static_cast<size_t>(w_out) * window.height;
  for (int c = 0; c < kChannels; ++c) {
    const float scale = 1.0f / (255.0f * stats.std[c]);
    const float bias = -stats.mean[c] / stats.std[c];
    for (int y = 0; y < window.height; ++y) {
      const float* w = &yt.weight[static_cast<size_t>(y) * yt.stride];
      const float* base = tmp + c * plane_rows +
                          static_cast<size_t>(yt.first[y] - row0) * w_out;
      float* dst = out + c * plane + static_cast<size_t>(y) * w_out;
      const float w0 = w[0];
      for (int x = 0; x < w_out; ++x) dst[x] = w0 * base[x];
      for (int k = 1; k < yt.count[y]; ++k) {
        const float wk = w[k];
        const float* row = base + static_cast<size_t>(k) * w_out;
        for (int x = 0; x < w_out; ++x) dst[x] += wk * row[x];
      }
      for (int x = 0; x < w_out; ++x) dst[x] = dst[x] * scale + bias;
    }
  }
}

}  // namespace

void ResizedCropToChw(const ImageView& src, Size2 scaled,
                      const CropWindow& window, bool flip,
                      const ChannelStats& stats, float* out) {
  const AxisTaps xt =
      ComputeTaps(src.width, scaled.width, window.x, window.width);
  const AxisTaps yt =
      ComputeTaps(src.height, scaled.height, window.y, window.height);
  if (src.channels == 3) {
    ResizeCropPlanar<3>(src, xt, yt, window, flip, stats, out);
  } else {
    ResizeCropPlanar<1>(src, xt, yt, window, flip, stats, out);
  }
}

}  // namespace powersweep
