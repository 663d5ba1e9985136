#include "workloads/data/idx_reader.h"

#include <sys/stat.h>

#include <array>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"

namespace powersweep {
namespace {

using ::powersweep::testing::IdxHeader;
using ::powersweep::testing::ImagesPayload;
using ::powersweep::testing::LabelsPayload;
using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteFile;
using ::powersweep::testing::WriteGzFile;
using ::testing::HasSubstr;

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist";

bool HaveFashionMnist() {
  struct stat st;
  return stat(kFashionMnist, &st) == 0;
}

std::array<int, 10> ClassCounts(const IdxImages& d) {
  std::array<int, 10> counts{};
  for (uint8_t label : d.labels) counts.at(label)++;
  return counts;
}

TEST(IdxReaderTest, RealFashionMnistTrainSplitHasSixThousandOfEveryClass) {
  if (!HaveFashionMnist()) GTEST_SKIP() << kFashionMnist << " not installed";
  absl::StatusOr<IdxImages> d = LoadIdxSplit(kFashionMnist, Split::kTrain);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count, 60000);
  EXPECT_EQ(d->rows, 28);
  EXPECT_EQ(d->cols, 28);
  EXPECT_EQ(d->pixels.size(), 60000u * 28 * 28);
  EXPECT_THAT(d->images_path, HasSubstr("train-images-idx3-ubyte"));
  for (int c : ClassCounts(*d)) EXPECT_EQ(c, 6000);
}

TEST(IdxReaderTest, RealFashionMnistTestSplitIsT10kWithAThousandPerClass) {
  if (!HaveFashionMnist()) GTEST_SKIP() << kFashionMnist << " not installed";
  absl::StatusOr<IdxImages> d = LoadIdxSplit(kFashionMnist, Split::kTest);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count, 10000);
  EXPECT_THAT(d->images_path, HasSubstr("t10k-images-idx3-ubyte"));
  EXPECT_THAT(d->labels_path, HasSubstr("t10k-labels-idx1-ubyte"));
  for (int c : ClassCounts(*d)) EXPECT_EQ(c, 1000);
  // Images are not blank: Fashion-MNIST pixels span the full 8-bit range.
  uint8_t max_pixel = 0;
  for (uint8_t p : d->pixels) max_pixel = std::max(max_pixel, p);
  EXPECT_EQ(max_pixel, 255);
}

TEST(IdxReaderTest, ReadsUncompressedFilesWhenNoGzipExists) {
  TempDir dir;
  WriteFile(dir.File("train-images-idx3-ubyte"),
            IdxHeader(kIdxImagesMagic, {20, 3, 4}) + ImagesPayload(20, 3, 4));
  WriteFile(dir.File("train-labels-idx1-ubyte"),
            IdxHeader(kIdxLabelsMagic, {20}) + LabelsPayload(20));
  absl::StatusOr<IdxImages> d = LoadIdxSplit(dir.path(), Split::kTrain);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count, 20);
  EXPECT_EQ(d->rows, 3);
  EXPECT_EQ(d->cols, 4);
  EXPECT_EQ(d->image(7)[11], 7);
  EXPECT_EQ(d->labels[13], 3);
}

TEST(IdxReaderTest, TruncatedImagesFileNamesFileAndAnnouncedSize) {
  TempDir dir;
  std::string path = dir.File("train-images-idx3-ubyte.gz");
  WriteGzFile(path, IdxHeader(kIdxImagesMagic, {60000, 28, 28}) +
                        std::string(1000, '\0'));
  absl::StatusOr<IdxImages> d = ReadIdxImages(path);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(path));
  EXPECT_THAT(d.status().message(), HasSubstr("truncated"));
  EXPECT_THAT(d.status().message(), HasSubstr("60000 images of 28x28"));
  EXPECT_THAT(d.status().message(), HasSubstr("47040000 bytes"));
  EXPECT_THAT(d.status().message(), HasSubstr("holds 1000"));
}

TEST(IdxReaderTest, TrailingBytesAfterAnnouncedImagesAreAnError) {
  TempDir dir;
  std::string path = dir.File("imgs");
  WriteFile(path, IdxHeader(kIdxImagesMagic, {2, 2, 2}) + std::string(9, '\0'));
  absl::StatusOr<IdxImages> d = ReadIdxImages(path);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr(path));
  EXPECT_THAT(d.status().message(), HasSubstr("trailing data"));
}

TEST(IdxReaderTest, WrongMagicNamesFileAndBothMagics) {
  TempDir dir;
  std::string path = dir.File("train-images-idx3-ubyte.gz");
  // A labels file where images are expected.
  WriteGzFile(path, IdxHeader(kIdxLabelsMagic, {20, 0, 0}));
  absl::StatusOr<IdxImages> d = ReadIdxImages(path);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr(path));
  EXPECT_THAT(d.status().message(), HasSubstr("wrong magic number 0x00000801"));
  EXPECT_THAT(d.status().message(), HasSubstr("0x00000803"));
}

TEST(IdxReaderTest, FileShorterThanHeaderIsTruncated) {
  TempDir dir;
  std::string path = dir.File("labels");
  WriteFile(path, "\x00\x00\x08");
  absl::StatusOr<std::vector<uint8_t>> labels = ReadIdxLabels(path);
  ASSERT_FALSE(labels.ok());
  EXPECT_THAT(labels.status().message(), HasSubstr(path));
  EXPECT_THAT(labels.status().message(), HasSubstr("truncated"));
}

TEST(IdxReaderTest, ImageAndLabelCountMismatchNamesBothFiles) {
  TempDir dir;
  WriteGzFile(dir.File("t10k-images-idx3-ubyte.gz"),
              IdxHeader(kIdxImagesMagic, {30, 2, 2}) + ImagesPayload(30, 2, 2));
  WriteGzFile(dir.File("t10k-labels-idx1-ubyte.gz"),
              IdxHeader(kIdxLabelsMagic, {29}) + LabelsPayload(29));
  absl::StatusOr<IdxImages> d = LoadIdxSplit(dir.path(), Split::kTest);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr("t10k-labels-idx1-ubyte.gz"));
  EXPECT_THAT(d.status().message(), HasSubstr("29 labels"));
  EXPECT_THAT(d.status().message(), HasSubstr("30 images"));
}

TEST(IdxReaderTest, LabelOutsideZeroToNineNamesFileAndSample) {
  TempDir dir;
  std::string path = dir.File("labels.gz");
  std::string payload = LabelsPayload(12);
  payload[5] = 10;
  WriteGzFile(path, IdxHeader(kIdxLabelsMagic, {12}) + payload);
  absl::StatusOr<std::vector<uint8_t>> labels = ReadIdxLabels(path);
  ASSERT_FALSE(labels.ok());
  EXPECT_THAT(labels.status().message(), HasSubstr(path));
  EXPECT_THAT(labels.status().message(), HasSubstr("label 10 of sample 5"));
}

TEST(IdxReaderTest, CutGzipStreamIsAnErrorNamingTheFile) {
  TempDir dir;
  std::string full = dir.File("full.gz");
  WriteGzFile(full, IdxHeader(kIdxImagesMagic, {500, 28, 28}) +
                        ImagesPayload(500, 28, 28));
  std::string bytes = testing::ReadFile(full);
  std::string path = dir.File("train-images-idx3-ubyte.gz");
  WriteFile(path, bytes.substr(0, bytes.size() / 2));
  absl::StatusOr<IdxImages> d = ReadIdxImages(path);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(path));
}

TEST(IdxReaderTest, CorruptGzipDataIsAnErrorNamingTheFile) {
  TempDir dir;
  std::string full = dir.File("full.gz");
  WriteGzFile(full, IdxHeader(kIdxImagesMagic, {500, 28, 28}) +
                        ImagesPayload(500, 28, 28));
  std::string bytes = testing::ReadFile(full);
  for (size_t i = 20; i < bytes.size() - 8; i += 7) bytes[i] ^= 0x5a;
  std::string path = dir.File("train-images-idx3-ubyte.gz");
  WriteFile(path, bytes);
  absl::StatusOr<IdxImages> d = ReadIdxImages(path);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(d.status().message(), HasSubstr(path));
}

TEST(IdxReaderTest, MissingDatasetDirectoryIsNotFoundNamingTheFile) {
  absl::StatusOr<IdxImages> d =
      LoadIdxSplit("/nonexistent/powersweep-data", Split::kTrain);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(
      d.status().message(),
      HasSubstr("/nonexistent/powersweep-data/train-images-idx3-ubyte"));
}

}  // namespace
}  // namespace powersweep
