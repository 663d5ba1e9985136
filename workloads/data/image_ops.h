// Geometry and pixel transforms of the data sets' sample pipelines.
//
// ResizedCropToChw is a bilinear resize written for this project, with
// antialiasing when shrinking (the triangle filter widened by the scale
// factor, as PIL's BILINEAR does, which torchvision's Resize uses on
// images): conceptually it resizes `src` to scaled_width x scaled_height,
// takes the crop window, mirrors it horizontally when `flip` is set and
// normalises it into CHW floats; only the pixels of the window are computed,
// in float without intermediate rounding. At a scale of exactly 1 it copies
// the pixels.
//
// Pure functions of their arguments; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_IMAGE_OPS_H_
#define POWERSWEEP_WORKLOADS_DATA_IMAGE_OPS_H_

#include <cstdint>

#include "workloads/data/normalization.h"

namespace powersweep {

// An interleaved 8-bit image (HWC), not owned.
struct ImageView {
  const uint8_t* pixels = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
};

struct Size2 {
  int width = 0;
  int height = 0;
};

struct CropWindow {
  int x = 0;  // left column in the resized image
  int y = 0;  // top row in the resized image
  int width = 0;
  int height = 0;
};

// The size torchvision's Resize(shorter) gives a width x height image: the
// shorter side becomes `shorter`, the longer side is scaled in proportion
// and truncated (int(shorter * long / short)).
Size2 ShorterSideResize(int width, int height, int shorter);

// The centred crop window of `crop` x `crop` in a `size` image, with
// torchvision's CenterCrop rounding (round half to even of the margin);
// requires crop <= both sides.
CropWindow CenterCrop(Size2 size, int crop);

// See the file comment. Requires src.channels == stats.channels (1 or 3)
// and the window inside scaled_width x scaled_height; writes
// stats.channels * window.width * window.height floats to out.
void ResizedCropToChw(const ImageView& src, Size2 scaled,
                      const CropWindow& window, bool flip,
                      const ChannelStats& stats, float* out);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_IMAGE_OPS_H_
