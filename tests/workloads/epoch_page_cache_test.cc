// EpochPageCache: with "drop" every epoch starts with the data set out of
// the page cache; with "keep" a set read in epoch 0 is found cached at the
// start of epoch 1. Files live on the build tree's disk (not tmpfs).
#include "workloads/runner/epoch_page_cache.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;

class EpochPageCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::current_path() /
           ("epoch_page_cache_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    for (int i = 0; i < 4; ++i) {
      const std::string f = (dir_ / ("img" + std::to_string(i))).string();
      std::vector<char> data(1 << 20, static_cast<char>('a' + i));
      std::ofstream(f, std::ios::binary).write(data.data(), data.size());
      files_.push_back(f);
    }
    sync();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What an epoch's loader does: read every file.
  void ReadEpoch() {
    std::vector<char> buf(1 << 20);
    for (const std::string& f : files_) {
      std::ifstream(f, std::ios::binary).read(buf.data(), buf.size());
    }
  }

  fs::path dir_;
  std::vector<std::string> files_;
};

TEST_F(EpochPageCacheTest, KeepFindsTheSetCachedAfterTheFirstEpoch) {
  EpochPageCache cache(files_, v1::PAGE_CACHE_KEEP);
  ReadEpoch();  // epoch 0 reads the set
  cache.OnEpochStart(1);
  std::optional<double> r = cache.TakeResidency(1);
  ASSERT_TRUE(r.has_value());
  EXPECT_GT(*r, 0.9);
  EXPECT_FALSE(cache.TakeResidency(1).has_value()) << "given once only";
  EXPECT_FALSE(cache.TakeResidency(2).has_value());
}

TEST_F(EpochPageCacheTest, DropStartsEveryEpochCold) {
  EpochPageCache cache(files_, v1::PAGE_CACHE_DROP);
  for (int epoch = 0; epoch < 3; ++epoch) {
    ReadEpoch();
    cache.OnEpochStart(epoch);
    std::optional<double> r = cache.TakeResidency(epoch);
    ASSERT_TRUE(r.has_value());
    EXPECT_LT(*r, 0.1) << "epoch " << epoch;
  }
}

TEST_F(EpochPageCacheTest, MissingFileLeavesTheEpochWithoutAFigure) {
  files_.push_back((dir_ / "gone").string());
  EpochPageCache cache(files_, v1::PAGE_CACHE_KEEP);
  cache.OnEpochStart(0);
  EXPECT_FALSE(cache.TakeResidency(0).has_value());
}

}  // namespace
}  // namespace powersweep
