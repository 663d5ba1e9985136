#include "workloads/data/jpeg_codec.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

// A smooth RGB gradient (compresses with little loss).
std::vector<uint8_t> Gradient(int w, int h) {
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &px[(static_cast<size_t>(y) * w + x) * 3];
      p[0] = static_cast<uint8_t>(255 * x / (w - 1));
      p[1] = static_cast<uint8_t>(255 * y / (h - 1));
      p[2] = 128;
    }
  }
  return px;
}

double MeanAbsDiff(const std::vector<uint8_t>& a,
                   const std::vector<uint8_t>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::abs(a[i] - b[i]);
  return sum / a.size();
}

TEST(JpegCodecTest, RoundTripKeepsSizeAndPixelsClose) {
  std::vector<uint8_t> px = Gradient(64, 48);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({px.data(), 64, 48, 3}, 95);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status();
  absl::StatusOr<JpegHeader> header = ReadJpegHeader("mem.jpg", *jpeg);
  ASSERT_TRUE(header.ok()) << header.status();
  EXPECT_EQ(header->width, 64);
  EXPECT_EQ(header->height, 48);
  EXPECT_FALSE(header->grey);
  absl::StatusOr<DecodedImage> img = DecodeJpeg("mem.jpg", *jpeg, {0, 0});
  ASSERT_TRUE(img.ok()) << img.status();
  EXPECT_EQ(img->width, 64);
  EXPECT_EQ(img->height, 48);
  ASSERT_EQ(img->rgb.size(), px.size());
  EXPECT_LT(MeanAbsDiff(img->rgb, px), 2.0);
}

TEST(JpegCodecTest, GreyJpegDecodesToThreeEqualChannels) {
  std::vector<uint8_t> grey(32 * 32);
  for (size_t i = 0; i < grey.size(); ++i)
    grey[i] = static_cast<uint8_t>(i % 251);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({grey.data(), 32, 32, 1}, 90);
  ASSERT_TRUE(jpeg.ok()) << jpeg.status();
  EXPECT_TRUE(ReadJpegHeader("g.jpg", *jpeg)->grey);
  absl::StatusOr<DecodedImage> img = DecodeJpeg("g.jpg", *jpeg, {0, 0});
  ASSERT_TRUE(img.ok()) << img.status();
  ASSERT_EQ(img->rgb.size(), 32u * 32 * 3);
  for (size_t p = 0; p < 32 * 32; ++p) {
    EXPECT_EQ(img->rgb[p * 3], img->rgb[p * 3 + 1]);
    EXPECT_EQ(img->rgb[p * 3], img->rgb[p * 3 + 2]);
  }
}

TEST(JpegCodecTest, LargeImageIsDecodedAtTheSmallestSufficientDctScale) {
  std::vector<uint8_t> px = Gradient(1024, 768);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({px.data(), 1024, 768, 3}, 85);
  ASSERT_TRUE(jpeg.ok());
  absl::StatusOr<DecodedImage> eighth = DecodeJpeg("big.jpg", *jpeg, {128, 96});
  ASSERT_TRUE(eighth.ok()) << eighth.status();
  EXPECT_EQ(eighth->width, 128);  // 1/8
  EXPECT_EQ(eighth->height, 96);
  absl::StatusOr<DecodedImage> quarter =
      DecodeJpeg("big.jpg", *jpeg, {129, 96});
  ASSERT_TRUE(quarter.ok());
  EXPECT_EQ(quarter->width, 256);  // 2/8: 1/8 would be one pixel short
  EXPECT_EQ(quarter->height, 192);
  // The scaled decode still shows the image: the red ramp runs left to right.
  EXPECT_LT(eighth->rgb[(48 * 128 + 2) * 3], 20);
  EXPECT_GT(eighth->rgb[(48 * 128 + 125) * 3], 235);
  absl::StatusOr<DecodedImage> full = DecodeJpeg("big.jpg", *jpeg, {1024, 768});
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->width, 1024);
}

TEST(JpegCodecTest, TruncatedJpegIsDataLossNamingTheFile) {
  std::vector<uint8_t> px = Gradient(200, 150);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({px.data(), 200, 150, 3}, 90);
  ASSERT_TRUE(jpeg.ok());
  const std::string cut = jpeg->substr(0, jpeg->size() / 2);
  absl::StatusOr<DecodedImage> img =
      DecodeJpeg("/data/train/a/cut.jpg", cut, {0, 0});
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(img.status().message(), HasSubstr("/data/train/a/cut.jpg"));
  EXPECT_THAT(img.status().message(), HasSubstr("Premature end"));
}

TEST(JpegCodecTest, NonJpegBytesAreDataLossNamingTheFile) {
  absl::StatusOr<JpegHeader> header =
      ReadJpegHeader("/data/x.jpg", "this is not a JPEG file at all");
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(header.status().message(), HasSubstr("/data/x.jpg"));
  absl::StatusOr<DecodedImage> empty =
      DecodeJpeg("/data/empty.jpg", "", {0, 0});
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("/data/empty.jpg"));
}

TEST(JpegCodecTest, CorruptEntropyDataIsAnError) {
  std::vector<uint8_t> px = Gradient(200, 150);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({px.data(), 200, 150, 3}, 90);
  ASSERT_TRUE(jpeg.ok());
  std::string bad = *jpeg;
  // Overwrite the middle of the scan with marker-like garbage.
  for (size_t i = bad.size() / 2; i < bad.size() / 2 + 64; ++i) bad[i] = '\xff';
  absl::StatusOr<DecodedImage> img = DecodeJpeg("/data/bad.jpg", bad, {0, 0});
  ASSERT_FALSE(img.ok());
  EXPECT_EQ(img.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(img.status().message(), HasSubstr("/data/bad.jpg"));
}

TEST(JpegCodecTest, EncoderRejectsBadQualityAndChannelCounts) {
  std::vector<uint8_t> px(16 * 16 * 4);
  EXPECT_EQ(EncodeJpeg({px.data(), 16, 16, 3}, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeJpeg({px.data(), 16, 16, 4}, 90).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace powersweep
