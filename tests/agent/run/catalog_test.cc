#include "agent/run/catalog.h"

#include <filesystem>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(Catalog, DatasetFlagsAcceptRepeatedAndCommaSeparatedEntries) {
  auto ds = ParseDatasetFlags({"a=/x,b=/y", "a=/z"});
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->size(), 2u);
  EXPECT_EQ(ds->at("a"), "/z");
  EXPECT_EQ(ds->at("b"), "/y");
}

TEST(Catalog, DatasetFlagWithoutPathIsRejected) {
  auto ds = ParseDatasetFlags({"fashion-mnist"});
  ASSERT_FALSE(ds.ok());
  EXPECT_NE(ds.status().message().find("NAME=PATH"), std::string::npos);
  EXPECT_FALSE(ParseDatasetFlags({"=/x"}).ok());
}

TEST(Catalog, SyntheticIsOfferedByDefaultAndItsNameIsReserved) {
  EXPECT_EQ(Catalog::DefaultDatasets().at("synthetic"), "synthetic");
  auto ds = ParseDatasetFlags({"a=/x,synthetic=/data/s"});
  ASSERT_FALSE(ds.ok());
  EXPECT_NE(ds.status().message().find("synthetic=/data/s"), std::string::npos);
  EXPECT_NE(ds.status().message().find("reserved"), std::string::npos);
}

TEST(Catalog, CpuListsParseRangesAndSingles) {
  EXPECT_EQ(*ParseCpuList("0-1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(*ParseCpuList("0,2"), (std::vector<int>{0, 2}));
  EXPECT_EQ(*ParseCpuList("4,0-2,1"), (std::vector<int>{0, 1, 2, 4}));
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("a").ok());
  EXPECT_FALSE(ParseCpuList("").ok());
}

}  // namespace

TEST(ParseDatasetFlagsTest, ARelativePathIsMadeAbsoluteAgainstTheWorkingDirectory) {
  auto ds = ParseDatasetFlags({"gld-mini=var/data/./gld-mini"});
  ASSERT_TRUE(ds.ok()) << ds.status();
  const std::string expected =
      (std::filesystem::current_path() / "var/data/gld-mini").string();
  EXPECT_EQ(ds->at("gld-mini"), expected);
}

}  // namespace powersweep
