#include "workloads/data/image_ops.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

// Normalisation that leaves values in 0..255 units: (v/255 - 0) / (1/255).
constexpr ChannelStats kIdentity{
    3, {0, 0, 0}, {1 / 255.0f, 1 / 255.0f, 1 / 255.0f}};
constexpr ChannelStats kIdentityGrey{1, {0}, {1 / 255.0f}};

TEST(ImageOpsTest, ShorterSideResizeMatchesTorchvisionTruncation) {
  // torchvision: Resize(256) of 500x375 -> 341x256 (int(256 * 500 / 375)).
  Size2 s = ShorterSideResize(500, 375, 256);
  EXPECT_EQ(s.width, 341);
  EXPECT_EQ(s.height, 256);
  s = ShorterSideResize(300, 400, 256);  // portrait
  EXPECT_EQ(s.width, 256);
  EXPECT_EQ(s.height, 341);
  s = ShorterSideResize(64, 64, 32);
  EXPECT_EQ(s.width, 32);
  EXPECT_EQ(s.height, 32);
}

TEST(ImageOpsTest, CenterCropRoundsTheMarginHalfToEven) {
  CropWindow w = CenterCrop({256, 341}, 224);
  EXPECT_EQ(w.x, 16);
  EXPECT_EQ(w.y, 58);  // round(117 / 2) = round(58.5) = 58 in Python
  w = CenterCrop({229, 227}, 224);
  EXPECT_EQ(w.x, 2);  // round(2.5) = 2
  EXPECT_EQ(w.y, 2);  // round(1.5) = 2
  EXPECT_EQ(w.width, 224);
  EXPECT_EQ(w.height, 224);
}

TEST(ImageOpsTest, ScaleOneCropCopiesPixelsIntoChwPlanes) {
  // 4x3 RGB image with distinct values per pixel and channel.
  std::vector<uint8_t> px(4 * 3 * 3);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * 7);
  ImageView src{px.data(), 4, 3, 3};
  std::vector<float> out(3 * 2 * 2);
  ResizedCropToChw(src, {4, 3}, {1, 1, 2, 2}, /*flip=*/false, kIdentity,
                   out.data());
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 2; ++x) {
        EXPECT_NEAR(out[c * 4 + y * 2 + x], px[((y + 1) * 4 + x + 1) * 3 + c],
                    1e-3)
            << c << "," << y << "," << x;
      }
    }
  }
  // Flipped: columns swap.
  std::vector<float> flipped(3 * 2 * 2);
  ResizedCropToChw(src, {4, 3}, {1, 1, 2, 2}, /*flip=*/true, kIdentity,
                   flipped.data());
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y < 2; ++y) {
      EXPECT_FLOAT_EQ(flipped[c * 4 + y * 2 + 0], out[c * 4 + y * 2 + 1]);
      EXPECT_FLOAT_EQ(flipped[c * 4 + y * 2 + 1], out[c * 4 + y * 2 + 0]);
    }
  }
}

TEST(ImageOpsTest, HalvingUsesTheWidenedTriangleFilter) {
  // A row 0, 100, 200, 40 shrunk to 2 (PIL's antialiased bilinear): the
  // triangle filter is widened to support 2 around each output centre.
  std::vector<uint8_t> px = {0, 100, 200, 40};
  ImageView src{px.data(), 4, 1, 1};
  std::vector<float> out(2);
  ResizedCropToChw(src, {2, 1}, {0, 0, 2, 1}, false, kIdentityGrey, out.data());
  // Output 0: centre 1.0, support 2: taps 0..2 with weights (0.75, 0.75,
  // 0.25) / 1.75 -> (0*0.75 + 100*0.75 + 200*0.25) / 1.75.
  EXPECT_NEAR(out[0], (0 * 0.75 + 100 * 0.75 + 200 * 0.25) / 1.75, 1e-3);
  // Output 1: centre 3.0: taps 1..3 with weights (0.25, 0.75, 0.75) / 1.75.
  EXPECT_NEAR(out[1], (100 * 0.25 + 200 * 0.75 + 40 * 0.75) / 1.75, 1e-3);
}

TEST(ImageOpsTest, DoublingInterpolatesBetweenNeighboursAndClampsEdges) {
  std::vector<uint8_t> px = {0, 100};
  ImageView src{px.data(), 2, 1, 1};
  std::vector<float> out(4);
  ResizedCropToChw(src, {4, 1}, {0, 0, 4, 1}, false, kIdentityGrey, out.data());
  // Output centres in input coordinates: 0.25, 0.75, 1.25, 1.75 (pixel
  // centres at 0.5 and 1.5).
  EXPECT_NEAR(out[0], 0, 1e-3);
  EXPECT_NEAR(out[1], 25, 1e-3);
  EXPECT_NEAR(out[2], 75, 1e-3);
  EXPECT_NEAR(out[3], 100, 1e-3);
}

TEST(ImageOpsTest, ConstantImageStaysConstantAtAnyScale) {
  std::vector<uint8_t> px(37 * 23 * 3, 77);
  ImageView src{px.data(), 37, 23, 3};
  for (Size2 scaled : {Size2{11, 7}, Size2{37, 23}, Size2{80, 50}}) {
    std::vector<float> out(3 * 5 * 5);
    ResizedCropToChw(src, scaled, {2, 1, 5, 5}, true, kIdentity, out.data());
    for (float v : out) EXPECT_NEAR(v, 77, 1e-2);
  }
}

TEST(ImageOpsTest, NormalisesEachChannelWithItsOwnStatistics) {
  std::vector<uint8_t> px = {255, 0, 51};
  ImageView src{px.data(), 1, 1, 3};
  std::vector<float> out(3);
  constexpr ChannelStats stats{3, {0.5f, 0.25f, 0.0f}, {0.5f, 0.25f, 2.0f}};
  ResizedCropToChw(src, {1, 1}, {0, 0, 1, 1}, false, stats, out.data());
  EXPECT_NEAR(out[0], (1.0 - 0.5) / 0.5, 1e-5);
  EXPECT_NEAR(out[1], (0.0 - 0.25) / 0.25, 1e-5);
  EXPECT_NEAR(out[2], (0.2 - 0.0) / 2.0, 1e-5);
}

}  // namespace
}  // namespace powersweep
