// A usage error prints the command's own entry of the help (a few lines)
// and where the rest is, not the whole help.
#include "controller/cli/usage.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

int Lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1;
}

TEST(ShortUsageTest, ACommandGetsItsOwnEntry) {
  const std::string u = ShortUsage("compare");
  EXPECT_THAT(u, HasSubstr("compare --sweep ID [--by runtime|page_cache|device"));
  EXPECT_THAT(u, HasSubstr("Welch's t-test"));
  EXPECT_THAT(u, HasSubstr("powersweep --help"));
  EXPECT_THAT(u, Not(HasSubstr("variability --sweep")));
  EXPECT_LT(Lines(u), 15);
  EXPECT_GT(Lines(std::string(kUsage)), 100);  // what it used to print
}

TEST(ShortUsageTest, EveryEntryOfACommandWithSubcommands) {
  const std::string u = ShortUsage("devices");
  EXPECT_THAT(u, HasSubstr("devices drain ID"));
  EXPECT_THAT(u, HasSubstr("devices --modes DEVICE"));
  EXPECT_THAT(u, Not(HasSubstr("top [--interval_s")));
}

TEST(ShortUsageTest, AnUnknownCommandGetsTheListOfCommands) {
  const std::string u = ShortUsage("sumbit");
  EXPECT_THAT(u, HasSubstr("commands: submit, watch, status, devices, top,"));
  EXPECT_THAT(u, HasSubstr("plan-profiling"));
  EXPECT_THAT(u, Not(HasSubstr("--batch-size,")));
  EXPECT_LT(Lines(u), 6);
}

}  // namespace
}  // namespace powersweep
