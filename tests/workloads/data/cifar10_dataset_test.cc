#include "workloads/data/cifar10_dataset.h"

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

using ::powersweep::testing::LoadSample;
using ::powersweep::testing::MaxAbsDiff;
using ::powersweep::testing::Open;
using ::powersweep::testing::SmallSet;
using ::powersweep::testing::TempDir;
using ::testing::EndsWith;
using ::testing::HasSubstr;

// The floats of a generated RGB 32x32 sample, normalised, CHW.
std::vector<float> Normalised(const SyntheticSample& s) {
  std::vector<float> out(3 * 32 * 32);
  for (int c = 0; c < 3; ++c) {
    for (int p = 0; p < 32 * 32; ++p) {
      out[c * 1024 + p] = kCifar10Stats.Apply(c, s.pixels[p * 3 + c]);
    }
  }
  return out;
}

// The padded (4 zero pixels), cropped, optionally mirrored version of `raw`
// (normalised CHW), as torchvision's RandomCrop(32, padding=4) then flip.
std::vector<float> PadCropFlip(const std::vector<float>& raw, int top, int left,
                               bool flip) {
  std::vector<float> out(raw.size());
  for (int c = 0; c < 3; ++c) {
    const float zero = kCifar10Stats.Apply(c, 0);
    for (int y = 0; y < 32; ++y) {
      for (int x = 0; x < 32; ++x) {
        const int sx = (flip ? 31 - x : x) + left - 4;
        const int sy = y + top - 4;
        const bool in = sx >= 0 && sx < 32 && sy >= 0 && sy < 32;
        out[c * 1024 + y * 32 + x] = in ? raw[c * 1024 + sy * 32 + sx] : zero;
      }
    }
  }
  return out;
}

class Cifar10DatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = SmallSet("cifar10", dir_.File("set"));
    g_.train_count = 23;
    g_.test_count = 7;
    ASSERT_TRUE(GenerateDataset(g_, nullptr).ok());
    resolved_ = *ResolveGenerateOptions(g_);
  }
  std::string Batch(const std::string& name) const {
    return g_.out_dir + "/" + name;
  }

  TempDir dir_;
  GenerateOptions g_;
  GenerateOptions resolved_;
};

TEST_F(Cifar10DatasetTest, GeneratedSetRoundTripsThroughTheReader) {
  // 23 samples over five batches: 4, 5, 4, 5, 5 records of 3073 bytes.
  const int records[] = {4, 5, 4, 5, 5};
  for (int b = 0; b < 5; ++b) {
    EXPECT_EQ(*FileSize(Batch(absl::StrCat("data_batch_", b + 1, ".bin"))),
              records[b] * 3073);
  }
  EXPECT_EQ(*FileSize(Batch("test_batch.bin")), 7 * 3073);
  EXPECT_TRUE(IsRegularFile(Batch("batches.meta.txt")));

  absl::StatusOr<std::unique_ptr<Dataset>> train =
      Open(g_.out_dir, Split::kTrain);
  ASSERT_TRUE(train.ok()) << train.status();
  EXPECT_EQ((*train)->format(), "cifar10");
  EXPECT_EQ((*train)->size(), 23);
  EXPECT_EQ((*train)->num_classes(), 10);
  EXPECT_EQ((*train)->shape(), (SampleShape{3, 32, 32}));
  EXPECT_EQ((*train)->files().size(), 5u);
  EXPECT_THAT((*train)->files()[4], EndsWith("data_batch_5.bin"));
  EXPECT_EQ((*train)->bytes_on_disk(), 23 * 3073);
  for (int64_t i = 0; i < 23; ++i) EXPECT_EQ((*train)->label(i), i % 4);

  absl::StatusOr<std::unique_ptr<Dataset>> test =
      Open(g_.out_dir, Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 7);
  for (int64_t i = 0; i < 7; ++i) {
    EXPECT_LT(
        MaxAbsDiff(LoadSample(**test, i, 99),
                   Normalised(SynthesizeSample(resolved_, Split::kTest, i))),
        1e-5)
        << "test sample " << i;
  }
}

TEST_F(Cifar10DatasetTest, TrainingAugmentationIsAPaddedRandomCropAndFlip) {
  absl::StatusOr<std::unique_ptr<Dataset>> train =
      Open(g_.out_dir, Split::kTrain);
  ASSERT_TRUE(train.ok());
  const std::vector<float> raw =
      Normalised(SynthesizeSample(resolved_, Split::kTrain, 6));
  std::set<std::tuple<int, int, bool>> seen;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    std::vector<float> x = LoadSample(**train, 6, seed);
    EXPECT_EQ(x, LoadSample(**train, 6, seed)) << "same seed, same sample";
    bool matched = false;
    for (int top = 0; top <= 8 && !matched; ++top) {
      for (int left = 0; left <= 8 && !matched; ++left) {
        for (bool flip : {false, true}) {
          if (MaxAbsDiff(x, PadCropFlip(raw, top, left, flip)) < 1e-6) {
            seen.insert({top, left, flip});
            matched = true;
            break;
          }
        }
      }
    }
    EXPECT_TRUE(matched) << "seed " << seed << " is not a crop + flip";
  }
  EXPECT_GE(seen.size(), 20u) << "different seeds give different crops";
  std::set<bool> flips;
  for (const auto& s : seen) flips.insert(std::get<2>(s));
  EXPECT_EQ(flips.size(), 2u);
}

TEST_F(Cifar10DatasetTest, WithoutAugmentationTrainingSamplesAreAsStored) {
  absl::StatusOr<std::unique_ptr<Dataset>> train =
      Open(g_.out_dir, Split::kTrain, /*augment=*/false);
  ASSERT_TRUE(train.ok());
  EXPECT_LT(
      MaxAbsDiff(LoadSample(**train, 2, 5),
                 Normalised(SynthesizeSample(resolved_, Split::kTrain, 2))),
      1e-5);
}

TEST_F(Cifar10DatasetTest, TruncatedBatchIsAnErrorNamingTheFile) {
  const std::string path = Batch("data_batch_2.bin");
  std::string bytes = testing::ReadFile(path);
  testing::WriteFile(path, bytes.substr(0, bytes.size() - 100));
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g_.out_dir, Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(path));
  EXPECT_THAT(d.status().message(), HasSubstr("multiple of the 3073-byte"));
}

TEST_F(Cifar10DatasetTest, LabelAboveNineIsAnErrorNamingFileAndRecord) {
  const std::string path = Batch("test_batch.bin");
  std::string bytes = testing::ReadFile(path);
  bytes[2 * 3073] = 10;
  testing::WriteFile(path, bytes);
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g_.out_dir, Split::kTest);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(path));
  EXPECT_THAT(d.status().message(), HasSubstr("record 2 has label 10"));
}

TEST_F(Cifar10DatasetTest, MissingBatchIsNotFoundNamingIt) {
  ASSERT_EQ(remove(Batch("data_batch_4.bin").c_str()), 0);
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g_.out_dir, Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr(Batch("data_batch_4.bin")));
  EXPECT_TRUE(Open(g_.out_dir, Split::kTest).ok()) << "the test split is whole";
}

TEST_F(Cifar10DatasetTest, OtherImageSizesAreRejected) {
  absl::StatusOr<std::unique_ptr<Dataset>> d =
      Open(g_.out_dir, Split::kTrain, true, 64);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(d.status().message(), HasSubstr("32x32"));
}

TEST(Cifar10LayoutTest, OfficialArchiveFolderIsFound) {
  TempDir dir;
  GenerateOptions g = SmallSet("cifar10", dir.File("cifar-10-batches-bin"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(dir.path(), Split::kTrain);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ((*d)->format(), "cifar10");
  EXPECT_EQ((*d)->path(), dir.path());
  EXPECT_THAT((*d)->files()[0],
              EndsWith("cifar-10-batches-bin/data_batch_1.bin"));
}

}  // namespace
}  // namespace powersweep
