#include "workloads/data/image_folder_dataset.h"

#include <stdio.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/file_util.h"
#include "workloads/data/image_ops.h"
#include "workloads/data/jpeg_codec.h"

namespace powersweep {
namespace {

using ::powersweep::testing::Denormalise;
using ::powersweep::testing::LoadSample;
using ::powersweep::testing::MaxAbsDiff;
using ::powersweep::testing::Open;
using ::powersweep::testing::SmallSet;
using ::powersweep::testing::TempDir;
using ::testing::HasSubstr;

// Samples are served at 56x56, so the shorter side is resized to
// round(56 * 256 / 224) = 64: the generated images' shorter side, and the
// resize is the identity.
constexpr int kServe = 56;

class ImageFolderDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = SmallSet("image-folder", dir_.File("set"));
    ASSERT_TRUE(GenerateDataset(g_, nullptr).ok());
    resolved_ = *ResolveGenerateOptions(g_);
    names_ = GeneratedClassNames(resolved_);
  }
  absl::StatusOr<std::unique_ptr<Dataset>> OpenSplit(Split split,
                                                     bool augment = true) {
    return Open(g_.out_dir, split, augment, kServe);
  }
  // The dataset index of generated sample `index` of `split`.
  int64_t IndexOf(const Dataset& d, Split split, int64_t index) {
    const std::string path =
        g_.out_dir + "/" + GeneratedImagePath(resolved_, names_, split, index);
    auto it = std::find(d.files().begin(), d.files().end(), path);
    EXPECT_NE(it, d.files().end()) << path;
    return it - d.files().begin();
  }

  TempDir dir_;
  GenerateOptions g_;
  GenerateOptions resolved_;
  std::vector<std::string> names_;
};

TEST_F(ImageFolderDatasetTest, GeneratedSetRoundTripsThroughTheReader) {
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  const Dataset& d = **train;
  EXPECT_EQ(d.format(), "image-folder");
  EXPECT_EQ(d.size(), 40);
  EXPECT_EQ(d.num_classes(), 4);
  EXPECT_EQ(d.shape(), (SampleShape{3, kServe, kServe}));
  EXPECT_TRUE(d.reads_files_per_sample());
  EXPECT_EQ(d.files().size(), 40u);
  EXPECT_EQ(d.bytes_on_disk(), *TotalFileSize(d.files()));
  // Classes are the sorted folder names; every generated sample is there
  // with its label.
  EXPECT_EQ(*ListDirectory(g_.out_dir + "/train"), names_);
  for (int64_t j = 0; j < 40; ++j) {
    EXPECT_EQ(d.label(IndexOf(d, Split::kTrain, j)), j % 4) << "sample " << j;
  }
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 12);
  EXPECT_EQ((*test)->num_classes(), 4);
  for (int64_t j = 0; j < 12; ++j) {
    EXPECT_EQ((*test)->label(IndexOf(**test, Split::kTest, j)), j % 4);
  }
  EXPECT_THAT((*test)->files()[0], HasSubstr("/val/"));
}

TEST_F(ImageFolderDatasetTest, TestSampleIsTheCenterCropOfTheGeneratedImage) {
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok());
  // JPEG (quality 90, 4:2:0) blurs the generator's per-pixel noise, so
  // compare 4x4 block means: they differ by ~2 levels on average here, and
  // by ~7 when the crop is off by a single pixel.
  constexpr int kBlock = 4;
  double total = 0;
  for (int64_t j = 0; j < 12; ++j) {
    SyntheticSample s = SynthesizeSample(resolved_, Split::kTest, j);
    ASSERT_EQ(std::min(s.width, s.height), 64);
    std::vector<float> x =
        LoadSample(**test, IndexOf(**test, Split::kTest, j), 0);
    ASSERT_EQ(x.size(), 3u * kServe * kServe);
    const CropWindow w = CenterCrop({s.width, s.height}, kServe);
    double sum = 0;
    int blocks = 0;
    for (int c = 0; c < 3; ++c) {
      for (int by = 0; by < kServe; by += kBlock) {
        for (int bx = 0; bx < kServe; bx += kBlock) {
          double got = 0, want = 0;
          for (int y = by; y < by + kBlock; ++y) {
            for (int xx = bx; xx < bx + kBlock; ++xx) {
              got += Denormalise(kImageNetStats, c,
                                 x[(c * kServe + y) * kServe + xx]);
              want += s.pixels[((y + w.y) * s.width + xx + w.x) * 3 + c];
            }
          }
          sum += std::fabs(got - want) / (kBlock * kBlock);
          ++blocks;
        }
      }
    }
    EXPECT_LT(sum / blocks, 5.0) << "sample " << j;
    total += sum / blocks;
  }
  EXPECT_LT(total / 12, 3.0);
}

TEST_F(ImageFolderDatasetTest, TestSplitHasNoRandomness) {
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok());
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(LoadSample(**test, i, 1), LoadSample(**test, i, 987654321));
  }
  absl::StatusOr<std::unique_ptr<Dataset>> plain =
      OpenSplit(Split::kTrain, /*augment=*/false);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(LoadSample(**plain, 3, 1), LoadSample(**plain, 3, 2));
}

TEST_F(ImageFolderDatasetTest, TrainingSampleIsARandomCropAndFlipOfTheImage) {
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_TRUE(train.ok());
  const int64_t i = 9;
  const std::string path = (*train)->files()[i];
  const std::string bytes = testing::ReadFile(path);
  absl::StatusOr<DecodedImage> img = DecodeJpeg(path, bytes, {0, 0});
  ASSERT_TRUE(img.ok()) << img.status();
  const Size2 size{img->width, img->height};
  std::set<std::vector<int>> windows;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    std::vector<float> x = LoadSample(**train, i, seed);
    EXPECT_EQ(x, LoadSample(**train, i, seed)) << "same seed, same sample";
    bool matched = false;
    for (int top = 0; top + kServe <= size.height && !matched; ++top) {
      for (int left = 0; left + kServe <= size.width && !matched; ++left) {
        for (bool flip : {false, true}) {
          std::vector<float> want(x.size());
          ResizedCropToChw(img->view(), size, {left, top, kServe, kServe}, flip,
                           kImageNetStats, want.data());
          if (MaxAbsDiff(x, want) < 1e-4) {
            windows.insert({top, left, flip});
            matched = true;
            break;
          }
        }
      }
    }
    EXPECT_TRUE(matched) << "seed " << seed << " is not a crop of the image";
  }
  EXPECT_GE(windows.size(), 6u) << "different seeds give different crops";
}

TEST_F(ImageFolderDatasetTest, TruncatedJpegFailsItsLoadNamingTheFile) {
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_TRUE(train.ok());
  const std::string path = (*train)->files()[5];
  std::string bytes = testing::ReadFile(path);
  testing::WriteFile(path, bytes.substr(0, bytes.size() * 2 / 3));
  std::vector<float> out((*train)->shape().numel());
  absl::Status st = (*train)->Load(5, 0, out.data());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(st.message(), HasSubstr(path));
  EXPECT_TRUE((*train)->Load(6, 0, out.data()).ok()) << "others still load";
}

TEST_F(ImageFolderDatasetTest, NonJpegContentWithAJpegNameIsAnErrorNamingIt) {
  const std::string path = g_.out_dir + "/train/" + names_[1] + "/zz.JPEG";
  testing::WriteFile(path, "<html>not an image</html>");
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_TRUE(train.ok());
  EXPECT_EQ((*train)->size(), 41) << ".JPEG files are samples too";
  const int64_t i =
      std::find((*train)->files().begin(), (*train)->files().end(), path) -
      (*train)->files().begin();
  ASSERT_LT(i, 41);
  EXPECT_EQ((*train)->label(i), 1);
  std::vector<float> out((*train)->shape().numel());
  absl::Status st = (*train)->Load(i, 0, out.data());
  EXPECT_EQ(st.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(st.message(), HasSubstr(path));
}

TEST_F(ImageFolderDatasetTest, FileDeletedAfterOpeningIsNotFoundNamingIt) {
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_TRUE(train.ok());
  const std::string path = (*train)->files()[0];
  ASSERT_EQ(remove(path.c_str()), 0);
  std::vector<float> out((*train)->shape().numel());
  absl::Status st = (*train)->Load(0, 0, out.data());
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(st.message(), HasSubstr(path));
}

TEST_F(ImageFolderDatasetTest, GreyJpegBecomesThreeEqualChannels) {
  std::vector<uint8_t> grey(80 * 70);
  for (size_t p = 0; p < grey.size(); ++p)
    grey[p] = static_cast<uint8_t>(p * 13);
  absl::StatusOr<std::string> jpeg = EncodeJpeg({grey.data(), 80, 70, 1}, 90);
  ASSERT_TRUE(jpeg.ok());
  const std::string path = g_.out_dir + "/val/" + names_[0] + "/grey.jpg";
  testing::WriteFile(path, *jpeg);
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok());
  const int64_t i =
      std::find((*test)->files().begin(), (*test)->files().end(), path) -
      (*test)->files().begin();
  std::vector<float> x = LoadSample(**test, i, 0);
  ASSERT_EQ(x.size(), 3u * kServe * kServe);
  const int plane = kServe * kServe;
  for (int p = 0; p < plane; p += 37) {
    const float r = Denormalise(kImageNetStats, 0, x[p]);
    EXPECT_NEAR(Denormalise(kImageNetStats, 1, x[plane + p]), r, 1e-2);
    EXPECT_NEAR(Denormalise(kImageNetStats, 2, x[2 * plane + p]), r, 1e-2);
  }
}

TEST_F(ImageFolderDatasetTest,
       LargeImageDecodedAtReducedScaleMatchesFullDecode) {
  // A 1000x750 image served at 56: the shorter side goes to 64, so the
  // decoder may use a 1/8 DCT scale (125x94) instead of decoding 1000x750.
  std::vector<uint8_t> smooth(1000 * 750 * 3);
  for (int y = 0; y < 750; ++y) {
    for (int x = 0; x < 1000; ++x) {
      uint8_t* p = &smooth[(y * 1000 + x) * 3];
      p[0] = static_cast<uint8_t>(x * 255 / 999);
      p[1] = static_cast<uint8_t>(y * 255 / 749);
      p[2] = static_cast<uint8_t>((x + y) % 256);
    }
  }
  absl::StatusOr<std::string> jpeg =
      EncodeJpeg({smooth.data(), 1000, 750, 3}, 92);
  ASSERT_TRUE(jpeg.ok());
  const std::string path = g_.out_dir + "/val/" + names_[2] + "/big.jpg";
  testing::WriteFile(path, *jpeg);
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok());
  const int64_t i =
      std::find((*test)->files().begin(), (*test)->files().end(), path) -
      (*test)->files().begin();
  std::vector<float> got = LoadSample(**test, i, 0);
  // Reference: full-size decode, then the same resize and center crop.
  absl::StatusOr<DecodedImage> full = DecodeJpeg(path, *jpeg, {0, 0});
  ASSERT_TRUE(full.ok());
  const Size2 scaled = ShorterSideResize(1000, 750, 64);
  EXPECT_EQ(scaled.width, 85);
  std::vector<float> want(got.size());
  ResizedCropToChw(full->view(), scaled, CenterCrop(scaled, kServe), false,
                   kImageNetStats, want.data());
  ASSERT_EQ(got.size(), want.size());
  double sum = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    const int c = static_cast<int>(k / (kServe * kServe));
    sum += std::fabs(Denormalise(kImageNetStats, c, got[k]) -
                     Denormalise(kImageNetStats, c, want[k]));
  }
  EXPECT_LT(sum / got.size(), 4.0);
}

TEST_F(ImageFolderDatasetTest, TestFolderIsUsedWhenThereIsNoVal) {
  ASSERT_EQ(
      rename((g_.out_dir + "/val").c_str(), (g_.out_dir + "/test").c_str()), 0);
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 12);
  EXPECT_THAT((*test)->files()[0], HasSubstr("/test/"));
}

TEST_F(ImageFolderDatasetTest, MissingTestSplitIsNotFound) {
  std::filesystem::remove_all(g_.out_dir + "/val");
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_FALSE(test.ok());
  EXPECT_EQ(test.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(test.status().message(), HasSubstr(g_.out_dir + "/val"));
}

TEST_F(ImageFolderDatasetTest, ValClassUnknownToTrainIsAnErrorNamingIt) {
  ASSERT_TRUE(MakeDirectories(g_.out_dir + "/val/999999x").ok());
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSplit(Split::kTest);
  ASSERT_FALSE(test.ok());
  EXPECT_EQ(test.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(test.status().message(), HasSubstr("999999x"));
}

TEST_F(ImageFolderDatasetTest, EmptyTrainingClassIsAnErrorNamingTheFolder) {
  ASSERT_TRUE(MakeDirectories(g_.out_dir + "/train/000000a").ok());
  absl::StatusOr<std::unique_ptr<Dataset>> train = OpenSplit(Split::kTrain);
  ASSERT_FALSE(train.ok());
  EXPECT_EQ(train.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(train.status().message(),
              HasSubstr(g_.out_dir + "/train/000000a"));
}

TEST_F(ImageFolderDatasetTest, TinyImageSizeIsRejected) {
  absl::StatusOr<std::unique_ptr<Dataset>> d =
      Open(g_.out_dir, Split::kTrain, true, 4);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ImageFolderNamesTest, JpegExtensionsInAnyCase) {
  EXPECT_TRUE(IsJpegFileName("a.jpg"));
  EXPECT_TRUE(IsJpegFileName("n01440764_10026.JPEG"));
  EXPECT_TRUE(IsJpegFileName("x.Jpeg"));
  EXPECT_FALSE(IsJpegFileName(".jpg"));
  EXPECT_FALSE(IsJpegFileName("a.png"));
  EXPECT_FALSE(IsJpegFileName("a.jpg.txt"));
}

}  // namespace
}  // namespace powersweep
