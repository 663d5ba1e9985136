#include "workloads/data/dataset.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"

namespace powersweep {
namespace {

using ::powersweep::testing::Open;
using ::powersweep::testing::SmallSet;
using ::powersweep::testing::TempDir;
using ::testing::HasSubstr;

TEST(OpenDatasetTest, DetectsEachGeneratedFormat) {
  for (const char* format : {"idx", "cifar10", "image-folder"}) {
    SCOPED_TRACE(format);
    TempDir dir;
    GenerateOptions g = SmallSet(format, dir.File("set"));
    ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
    absl::StatusOr<std::string> detected = DetectDatasetFormat(g.out_dir);
    ASSERT_TRUE(detected.ok()) << detected.status();
    EXPECT_EQ(*detected, format);
    for (Split split : {Split::kTrain, Split::kTest}) {
      absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, split);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_EQ((*d)->format(), format);
      EXPECT_EQ((*d)->split(), split);
      EXPECT_EQ((*d)->size(), split == Split::kTrain ? 40 : 12);
      EXPECT_FALSE((*d)->files().empty());
    }
  }
}

TEST(OpenDatasetTest, UnrecognisedDirectoryListsWhatWasLookedFor) {
  TempDir dir;
  testing::WriteFile(dir.File("README.txt"), "my photos");
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(dir.path(), Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr(dir.path()));
  EXPECT_THAT(d.status().message(), HasSubstr("train-images-idx3-ubyte"));
  EXPECT_THAT(d.status().message(), HasSubstr("data_batch_1.bin"));
  EXPECT_THAT(d.status().message(), HasSubstr("train/<class>/"));
}

TEST(OpenDatasetTest, MissingDirectoryIsNotFoundNamingIt) {
  absl::StatusOr<std::unique_ptr<Dataset>> d =
      Open("/nonexistent/powersweep-data", Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr("/nonexistent/powersweep-data"));
}

TEST(OpenDatasetTest, IdxSetWithoutTheTestFilesFailsOnlyForTheTestSplit) {
  TempDir dir;
  GenerateOptions g = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  ASSERT_EQ(remove((g.out_dir + "/t10k-images-idx3-ubyte.gz").c_str()), 0);
  EXPECT_TRUE(Open(g.out_dir, Split::kTrain).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTest);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr("t10k-images-idx3-ubyte"));
}

TEST(OpenDatasetTest, IndexOutOfRangeIsInvalidArgument) {
  TempDir dir;
  GenerateOptions g = SmallSet("cifar10", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTest);
  ASSERT_TRUE(d.ok());
  std::vector<float> out((*d)->shape().numel());
  EXPECT_EQ((*d)->Load(12, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*d)->Load(-1, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(OpenDatasetTest, UnfinishedGenerationIsRefused) {
  TempDir dir;
  GenerateOptions g = SmallSet("cifar10", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  const std::string marker = g.out_dir + "/" + kGeneratedMarkerName;
  std::string text = testing::ReadFile(marker);
  ASSERT_THAT(text, HasSubstr("complete: yes"));
  text.replace(text.find("complete: yes"), 13, "complete: no");
  testing::WriteFile(marker, text);
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(d.status().message(), HasSubstr(marker));
}

}  // namespace
}  // namespace powersweep
