#include "workloads/data/dataset_generator.h"

#include <stdio.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/file_bytes.h"
#include "workloads/data/file_util.h"

namespace powersweep {
namespace {

using ::powersweep::testing::LoadSample;
using ::powersweep::testing::Open;
using ::powersweep::testing::SmallSet;
using ::powersweep::testing::TempDir;
using ::testing::HasSubstr;

// Every file under `dir` (relative path -> content, gunzipped).
std::vector<std::pair<std::string, std::string>> Contents(
    const std::string& dir, const std::string& rel = "") {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string here = rel.empty() ? dir : dir + "/" + rel;
  const std::vector<std::string> names = ListDirectory(here).value();
  for (const std::string& name : names) {
    const std::string r = rel.empty() ? name : rel + "/" + name;
    if (IsDirectory(dir + "/" + r)) {
      auto sub = Contents(dir, r);
      out.insert(out.end(), sub.begin(), sub.end());
    } else if (name != kGeneratedMarkerName) {
      out.emplace_back(r, ReadFileBytes(dir + "/" + r).value());
    }
  }
  return out;
}

struct BadOption {
  std::function<void(GenerateOptions&)> change;
  std::string flag;
};

TEST(DatasetGeneratorTest, InvalidOptionsNameTheirFlag) {
  TempDir dir;
  const std::vector<BadOption> cases = {
      {[](GenerateOptions& o) { o.format = "png"; }, "--format"},
      {[](GenerateOptions& o) { o.out_dir = ""; }, "--out"},
      {[](GenerateOptions& o) { o.train_count = 0; }, "--train-count"},
      {[](GenerateOptions& o) { o.test_count = -1; }, "--test-count"},
      {[](GenerateOptions& o) { o.classes = 11; }, "--classes"},
      {[](GenerateOptions& o) { o.classes = 0; }, "--classes"},
      {[](GenerateOptions& o) { o.image_size = 2; }, "--image-size"},
      {[](GenerateOptions& o) {
         o.format = "cifar10";
         o.image_size = 64;
       },
       "--image-size"},
      {[](GenerateOptions& o) {
         o.format = "image-folder";
         o.classes = 50;
       },
       "--train-count"},
  };
  for (const BadOption& c : cases) {
    GenerateOptions o = SmallSet("idx", dir.File("set"));
    c.change(o);
    absl::Status st = GenerateDataset(o, nullptr);
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << c.flag;
    EXPECT_THAT(st.message(), HasSubstr(c.flag));
  }
  EXPECT_FALSE(IsDirectory(dir.File("set"))) << "nothing written";
}

TEST(DatasetGeneratorTest, OutputDependsOnTheSeedOnlyNotOnThreads) {
  TempDir dir;
  GenerateOptions a = SmallSet("image-folder", dir.File("a"));
  a.threads = 1;
  GenerateOptions b = a;
  b.out_dir = dir.File("b");
  b.threads = 3;
  GenerateOptions c = a;
  c.out_dir = dir.File("c");
  c.seed = 4;
  for (const GenerateOptions& o : {a, b, c}) {
    ASSERT_TRUE(GenerateDataset(o, nullptr).ok());
  }
  auto ca = Contents(a.out_dir);
  EXPECT_EQ(ca.size(), 52u);
  EXPECT_EQ(ca, Contents(b.out_dir));
  EXPECT_NE(ca, Contents(c.out_dir));
}

TEST(DatasetGeneratorTest, ImageFolderClassesAreSixDigitIdsWithVariedSizes) {
  TempDir dir;
  GenerateOptions o = SmallSet("image-folder", dir.File("set"));
  o.classes = 7;
  ASSERT_TRUE(GenerateDataset(o, nullptr).ok());
  std::vector<std::string> names = *ListDirectory(o.out_dir + "/train");
  ASSERT_EQ(names.size(), 7u);
  EXPECT_EQ(names, GeneratedClassNames(*ResolveGenerateOptions(o)));
  EXPECT_EQ(*ListDirectory(o.out_dir + "/val"), names);
  for (const std::string& n : names) {
    EXPECT_EQ(n.size(), 6u);
    EXPECT_EQ(n.find_first_not_of("0123456789"), std::string::npos) << n;
  }
  std::set<std::pair<int, int>> sizes;
  GenerateOptions r = *ResolveGenerateOptions(o);
  for (int64_t i = 0; i < o.train_count; ++i) {
    SyntheticSample s = SynthesizeSample(r, Split::kTrain, i);
    EXPECT_EQ(std::min(s.width, s.height), 64);
    EXPECT_LE(std::max(s.width, s.height), 96);
    sizes.insert({s.width, s.height});
  }
  EXPECT_GT(sizes.size(), 10u);
}

TEST(DatasetGeneratorTest, RefusesANonEmptyDirectoryItDidNotWrite) {
  TempDir dir;
  testing::WriteFile(dir.File("thesis.tex"), "precious");
  GenerateOptions o = SmallSet("idx", dir.path());
  absl::Status st = GenerateDataset(o, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr(dir.path()));
  EXPECT_THAT(st.message(), HasSubstr("not empty"));
  EXPECT_EQ(testing::ReadFile(dir.File("thesis.tex")), "precious");
}

TEST(DatasetGeneratorTest, ReplacesAnEarlierGeneratedSetOfTheSameFormat) {
  TempDir dir;
  GenerateOptions o = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(o, nullptr).ok());
  o.gzip = false;
  o.train_count = 30;
  absl::Status st = GenerateDataset(o, nullptr);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_FALSE(IsRegularFile(o.out_dir + "/train-images-idx3-ubyte.gz"));
  EXPECT_TRUE(IsRegularFile(o.out_dir + "/train-images-idx3-ubyte"));
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(o.out_dir, Split::kTrain);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)->size(), 30);
}

TEST(DatasetGeneratorTest, RefusesToReplaceAnotherFormatOrForeignFiles) {
  TempDir dir;
  GenerateOptions o = SmallSet("idx", dir.File("set"));
  ASSERT_TRUE(GenerateDataset(o, nullptr).ok());
  GenerateOptions cifar = SmallSet("cifar10", o.out_dir);
  absl::Status st = GenerateDataset(cifar, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("holds a generated idx set"));

  testing::WriteFile(o.out_dir + "/notes.txt", "mine");
  st = GenerateDataset(o, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("notes.txt"));
  EXPECT_TRUE(IsRegularFile(o.out_dir + "/notes.txt"));
  EXPECT_TRUE(Open(o.out_dir, Split::kTrain).ok()) << "earlier set untouched";
}

TEST(DatasetGeneratorTest, ProgressRisesToTheTotal) {
  for (const char* format : {"idx", "cifar10", "image-folder"}) {
    SCOPED_TRACE(format);
    TempDir dir;
    GenerateOptions o = SmallSet(format, dir.File("set"));
    std::vector<std::pair<int64_t, int64_t>> calls;
    ASSERT_TRUE(GenerateDataset(o, [&](int64_t done, int64_t total) {
                  calls.emplace_back(done, total);
                }).ok());
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls.back(), std::make_pair(int64_t{52}, int64_t{52}));
    for (size_t i = 1; i < calls.size(); ++i) {
      EXPECT_LE(calls[i - 1].first, calls[i].first);
    }
  }
}

// Nearest class mean on the normalised pixels: a crude classifier that
// still separates the generated classes if they are learnable.
double NearestMeanAccuracy(const Dataset& train, const Dataset& test) {
  const int64_t n = train.shape().numel();
  std::vector<std::vector<double>> mean(train.num_classes(),
                                        std::vector<double>(n, 0));
  std::vector<int> count(train.num_classes(), 0);
  for (int64_t i = 0; i < train.size(); ++i) {
    std::vector<float> x = LoadSample(train, i, 0);
    for (int64_t k = 0; k < n; ++k) mean[train.label(i)][k] += x[k];
    ++count[train.label(i)];
  }
  for (size_t c = 0; c < mean.size(); ++c) {
    for (double& v : mean[c]) v /= std::max(count[c], 1);
  }
  int correct = 0;
  for (int64_t i = 0; i < test.size(); ++i) {
    std::vector<float> x = LoadSample(test, i, 0);
    int best = -1;
    double best_d = 1e300;
    for (size_t c = 0; c < mean.size(); ++c) {
      if (count[c] == 0) continue;
      double d = 0;
      for (int64_t k = 0; k < n; ++k)
        d += (x[k] - mean[c][k]) * (x[k] - mean[c][k]);
      if (d < best_d) {
        best_d = d;
        best = static_cast<int>(c);
      }
    }
    correct += best == test.label(i);
  }
  return static_cast<double>(correct) / test.size();
}

TEST(DatasetGeneratorTest, GeneratedClassesAreLearnable) {
  for (const char* format : {"idx", "cifar10", "image-folder"}) {
    SCOPED_TRACE(format);
    TempDir dir;
    GenerateOptions o = SmallSet(format, dir.File("set"));
    o.classes = 10;
    o.train_count = 200;
    o.test_count = 100;
    ASSERT_TRUE(GenerateDataset(o, nullptr).ok());
    auto train = Open(o.out_dir, Split::kTrain, /*augment=*/false, 0);
    auto test = Open(o.out_dir, Split::kTest, false, 0);
    ASSERT_TRUE(train.ok() && test.ok());
    // Chance is 10 %.
    const double acc = NearestMeanAccuracy(**train, **test);
    std::printf("%s nearest-mean accuracy %.2f\n", format, acc);
    EXPECT_GT(acc, 0.8);
  }
}

}  // namespace
}  // namespace powersweep
