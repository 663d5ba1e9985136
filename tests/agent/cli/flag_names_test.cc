#include "agent/cli/flag_names.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::vector<std::string> Normalize(std::vector<std::string> in) {
  std::vector<char*> argv;
  for (std::string& s : in) argv.push_back(s.data());
  return UnderscoreFlagNames(static_cast<int>(argv.size()), argv.data());
}

TEST(FlagNames, DashedNamesBecomeAbslNamesAndValuesAreKept) {
  EXPECT_EQ(Normalize({"agent", "--device-id", "orin-07", "--work-dir=/tmp/a-b",
                 "-max-backoff-s=3", "--dataset", "fashion-mnist=/d/f-m"}),
            (std::vector<std::string>{"agent", "--device_id", "orin-07",
                                      "--work_dir=/tmp/a-b",
                                      "-max_backoff_s=3", "--dataset",
                                      "fashion-mnist=/d/f-m"}));
}

TEST(FlagNames, ArgumentsAfterDoubleDashAreLeftAlone) {
  EXPECT_EQ(Normalize({"agent", "--log-level=debug", "--", "--not-a-flag"}),
            (std::vector<std::string>{"agent", "--log_level=debug", "--",
                                      "--not-a-flag"}));
}

TEST(FlagNames, RepeatedDatasetFlagsAreMergedInOrder) {
  EXPECT_EQ(MergeRepeatedFlag({"agent", "--dataset", "a=/x", "--cpus=0",
                               "--dataset=b=/y,c=/z", "--", "--dataset=q"},
                              "dataset"),
            (std::vector<std::string>{"agent", "--dataset=a=/x,b=/y,c=/z",
                                      "--cpus=0", "--", "--dataset=q"}));
  EXPECT_EQ(MergeRepeatedFlag({"agent", "--cpus=0"}, "dataset"),
            (std::vector<std::string>{"agent", "--cpus=0"}));
}

}  // namespace
}  // namespace powersweep
