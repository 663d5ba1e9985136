// MeasureResidency / DropFromPageCache on a real file of this machine's
// disk: reading it brings it into the page cache, dropping evicts it.
#include "workloads/data/page_cache.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A file on the build tree's disk (not /tmp, which may be tmpfs where pages
// cannot be dropped).
class PageCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (fs::current_path() /
             ("page_cache_test_" + std::to_string(getpid()) + ".bin"))
                .string();
    std::vector<char> data(8 << 20);
    std::mt19937 rng(7);
    for (char& c : data) c = static_cast<char>(rng());
    std::ofstream(path_, std::ios::binary).write(data.data(), data.size());
    sync();
  }
  void TearDown() override { fs::remove(path_); }

  void ReadAll() {
    std::ifstream in(path_, std::ios::binary);
    std::vector<char> buf(1 << 20);
    while (in.read(buf.data(), buf.size()) || in.gcount() > 0) {
    }
  }

  std::string path_;
};

TEST_F(PageCacheTest, ReadingFillsAndDroppingEmptiesTheCache) {
  ReadAll();
  auto before = MeasureResidency({path_});
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->total_pages, (8 << 20) / sysconf(_SC_PAGESIZE));
  EXPECT_GT(before->fraction(), 0.9);

  ASSERT_TRUE(DropFromPageCache({path_}).ok());
  auto after = MeasureResidency({path_});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_LT(after->fraction(), 0.1) << "file system: "
                                    << fs::current_path().string();

  ReadAll();
  auto again = MeasureResidency({path_});
  ASSERT_TRUE(again.ok());
  EXPECT_GT(again->fraction(), 0.9);
}

TEST_F(PageCacheTest, MissingFileIsNamed) {
  auto r = MeasureResidency({path_, "/no/such/file.jpg"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/no/such/file.jpg"));
  absl::Status d = DropFromPageCache({"/no/such/file.jpg"});
  EXPECT_THAT(d.message(), HasSubstr("/no/such/file.jpg"));
}

TEST(Residency, EmptySetCountsAsResident) {
  auto r = MeasureResidency({});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total_pages, 0);
  EXPECT_DOUBLE_EQ(r->fraction(), 1.0);
}

}  // namespace
}  // namespace powersweep
