#include "workloads/data/idx_dataset.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

using ::powersweep::testing::Denormalise;
using ::powersweep::testing::LoadSample;
using ::powersweep::testing::MaxAbsDiff;
using ::powersweep::testing::Open;
using ::powersweep::testing::SmallSet;
using ::powersweep::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;

// The floats Load must write for a generated grey sample.
std::vector<float> Normalised(const SyntheticSample& s) {
  std::vector<float> out;
  for (uint8_t v : s.pixels) out.push_back(kFashionMnistStats.Apply(0, v));
  return out;
}

TEST(IdxDatasetTest, GeneratedSetRoundTripsThroughTheReader) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> train =
      Open(g.out_dir, Split::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  const Dataset& d = **train;
  EXPECT_EQ(d.format(), "idx");
  EXPECT_EQ(d.path(), g.out_dir);
  EXPECT_EQ(d.size(), 40);
  EXPECT_EQ(d.num_classes(), 10);  // MNIST layout, whatever the labels used
  EXPECT_EQ(d.shape(), (SampleShape{1, 28, 28}));
  EXPECT_FALSE(d.reads_files_per_sample());
  EXPECT_THAT(d.files(), ElementsAre(EndsWith("train-images-idx3-ubyte.gz"),
                                     EndsWith("train-labels-idx1-ubyte.gz")));
  EXPECT_EQ(d.bytes_on_disk(), *TotalFileSize(d.files()));
  for (int64_t i = 0; i < d.size(); ++i) EXPECT_EQ(d.label(i), i % 4);

  GenerateOptions resolved = *ResolveGenerateOptions(g);
  EXPECT_LT(MaxAbsDiff(LoadSample(d, 7, 0), Normalised(SynthesizeSample(
                                                resolved, Split::kTrain, 7))),
            1e-5);

  absl::StatusOr<std::unique_ptr<Dataset>> test = Open(g.out_dir, Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 12);
  EXPECT_THAT((*test)->files()[0], EndsWith("t10k-images-idx3-ubyte.gz"));
  EXPECT_LT(
      MaxAbsDiff(LoadSample(**test, 11, 0),
                 Normalised(SynthesizeSample(resolved, Split::kTest, 11))),
      1e-5);
}

TEST(IdxDatasetTest, PlainFilesAndOtherSizesAreRead) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  g.gzip = false;
  g.image_size = 12;
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTrain);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT((*d)->files()[0], EndsWith("train-images-idx3-ubyte"));
  EXPECT_EQ((*d)->shape(), (SampleShape{1, 12, 12}));
  // Pixels span a good part of 0..255 (the stripes are visible).
  std::vector<float> x = LoadSample(**d, 0, 0);
  float lo = 255, hi = 0;
  for (float v : x) {
    lo = std::min(lo, Denormalise(kFashionMnistStats, 0, v));
    hi = std::max(hi, Denormalise(kFashionMnistStats, 0, v));
  }
  EXPECT_GT(hi - lo, 60);
}

TEST(IdxDatasetTest, NeverAugments) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTrain);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(LoadSample(**d, 3, 1), LoadSample(**d, 3, 12345));
}

TEST(IdxDatasetTest, TruncatedImagesFileIsAnErrorNamingIt) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  g.gzip = false;
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  const std::string images = g.out_dir + "/train-images-idx3-ubyte";
  std::string bytes = testing::ReadFile(images);
  testing::WriteFile(images, bytes.substr(0, bytes.size() - 100));
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(images));
  EXPECT_THAT(d.status().message(), HasSubstr("truncated"));
}

TEST(IdxDatasetTest, ImageSizeOtherThanNativeIsRejected) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d =
      Open(g.out_dir, Split::kTrain, true, /*image_size=*/32);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(d.status().message(), HasSubstr("28x28"));
  EXPECT_TRUE(Open(g.out_dir, Split::kTrain, true, 28).ok());
}

TEST(IdxDatasetTest, RealFashionMnistOpensAsIdx) {
  constexpr char kDir[] = "/usr/share/datasets/fashion-mnist";
  struct stat st;
  if (stat(kDir, &st) != 0) GTEST_SKIP() << kDir << " not installed";
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(kDir, Split::kTest);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->format(), "idx");
  EXPECT_EQ((*d)->size(), 10000);
  EXPECT_EQ((*d)->shape(), (SampleShape{1, 28, 28}));
  EXPECT_GT((*d)->bytes_on_disk(), 1000000);
}

}  // namespace
}  // namespace powersweep
