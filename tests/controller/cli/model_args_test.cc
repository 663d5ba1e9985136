// The model commands' command-line values: budgets with units (a missing
// unit or a bad number is an error naming the flag), power modes in MHz,
// and the argument pre-pass (dashes in flag names, repeatable --mode).
#include "controller/cli/model_args.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ModelArgsTest, TimeBudgetUnits) {
  EXPECT_DOUBLE_EQ(*ParseTimeBudget("--max-epoch-time", "90s"), 90);
  EXPECT_DOUBLE_EQ(*ParseTimeBudget("--max-epoch-time", "90 s"), 90);
  EXPECT_DOUBLE_EQ(*ParseTimeBudget("--max-epoch-time", "1500ms"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseTimeBudget("--max-epoch-time", "1.5min"), 90);
  EXPECT_DOUBLE_EQ(*ParseTimeBudget("--max-epoch-time", "2MIN"), 120);
}

TEST(ModelArgsTest, PowerAndEnergyBudgetUnits) {
  EXPECT_DOUBLE_EQ(*ParsePowerBudget("--max-power", "15W"), 15);
  EXPECT_DOUBLE_EQ(*ParsePowerBudget("--max-power", "9500mW"), 9.5);
  EXPECT_DOUBLE_EQ(*ParseEnergyBudget("--max-energy", "300J"), 300);
  EXPECT_DOUBLE_EQ(*ParseEnergyBudget("--max-energy", "1.2kJ"), 1200);
}

TEST(ModelArgsTest, MissingUnitIsAnErrorNamingTheFlag) {
  auto v = ParseTimeBudget("--max-epoch-time", "90");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(v.status().message(), HasSubstr("--max-epoch-time"));
  EXPECT_THAT(v.status().message(), HasSubstr("no unit"));
  EXPECT_THAT(ParsePowerBudget("--max-power", "15").status().message(),
              HasSubstr("--max-power: '15' has no unit (use W, mW"));
}

TEST(ModelArgsTest, BadNumbersAndUnitsAreErrorsNamingTheFlag) {
  for (const char* bad : {"abcs", "-5s", "0s", "1.2.3s", "s", ""}) {
    auto v = ParseTimeBudget("--max-epoch-time", bad);
    EXPECT_FALSE(v.ok()) << bad;
    EXPECT_THAT(v.status().message(), HasSubstr("--max-epoch-time")) << bad;
  }
  auto unit = ParseEnergyBudget("--max-energy", "300Wh");
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(unit.status().message(), HasSubstr("unknown unit 'Wh'"));
  EXPECT_THAT(ParsePowerBudget("--max-power", "abcW").status().message(),
              HasSubstr("--max-power: 'abc' in 'abcW' is not a number"));
  // A time unit is not a power unit.
  EXPECT_FALSE(ParsePowerBudget("--max-power", "15s").ok());
}

TEST(ModelArgsTest, ModeInMhzBecomesKhzAndHz) {
  auto m = ParseModeFlag("cores=4,cpu_mhz=1190.4,gpu_mhz=318.75,mem_mhz=2133");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->cpu_cores(), 4);
  EXPECT_EQ(m->cpu_freq_khz(), 1190400);
  EXPECT_EQ(m->gpu_freq_hz(), 318750000);
  EXPECT_EQ(m->mem_freq_hz(), 2133000000);
  auto raw = ParseModeFlag("cpu_cores=2,cpu_freq_khz=729600,gpu_hz=114750000");
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(raw->cpu_cores(), 2);
  EXPECT_EQ(raw->cpu_freq_khz(), 729600);
  EXPECT_EQ(raw->gpu_freq_hz(), 114750000);
  EXPECT_EQ(raw->mem_freq_hz(), 0);  // left out: the maximum
  EXPECT_EQ(ParseModeFlag("preset=MODE_15W,cores=2")->preset(), "MODE_15W");
}

TEST(ModelArgsTest, BadModesNameTheProblem) {
  EXPECT_THAT(ParseModeFlag("gpu=1377").status().message(),
              HasSubstr("unknown key 'gpu'"));
  EXPECT_THAT(ParseModeFlag("cores").status().message(),
              HasSubstr("not key=value"));
  EXPECT_THAT(ParseModeFlag("cores=0").status().message(),
              HasSubstr("positive integer"));
  EXPECT_THAT(ParseModeFlag("cpu_mhz=fast").status().message(),
              HasSubstr("cpu_mhz=fast"));
  EXPECT_FALSE(ParseModeFlag("").ok());
}

TEST(ModelArgsTest, TaskAndPositiveInts) {
  EXPECT_EQ(*ParseTaskFlag("--task", "infer"), v1::TASK_INFER);
  EXPECT_EQ(*ParseTaskFlag("--task", ""), v1::TASK_UNSPECIFIED);
  EXPECT_THAT(ParseTaskFlag("--task", "eval").status().message(),
              HasSubstr("--task"));
  EXPECT_EQ(*ParsePositiveIntFlag("--modes", "8"), 8);
  EXPECT_THAT(ParsePositiveIntFlag("--modes", "eight").status().message(),
              HasSubstr("--modes: expected a positive integer, got 'eight'"));
  EXPECT_FALSE(ParsePositiveIntFlag("--modes", "0").ok());
}

TEST(ModelArgsTest, PrepareArgsSpellsDashesAsUnderscoresAndCollectsModes) {
  std::vector<std::string> in = {"powersweep",
                                 "predict",
                                 "--device-class",
                                 "xavier-agx",
                                 "--mode",
                                 "cores=4",
                                 "--max-epoch-time=90s",
                                 "--mode=cores=8",
                                 "--batch-size",
                                 "64",
                                 "--modes",
                                 "8",
                                 "cpu-x"};
  std::vector<char*> argv;
  for (std::string& s : in) argv.push_back(s.data());
  PreparedArgs p = PrepareArgs(static_cast<int>(argv.size()), argv.data());
  EXPECT_TRUE(p.problem.empty());
  EXPECT_THAT(p.modes, ElementsAre("cores=4", "cores=8"));
  EXPECT_THAT(p.args,
              ElementsAre("powersweep", "predict", "--device_class",
                          "xavier-agx", "--max_epoch_time=90s", "--batch_size",
                          "64", "--modes", "8", "cpu-x"));
}

TEST(ModelArgsTest, ModeWithoutValueIsAProblem) {
  std::vector<std::string> in = {"powersweep", "predict", "--mode"};
  std::vector<char*> argv;
  for (std::string& s : in) argv.push_back(s.data());
  EXPECT_EQ(PrepareArgs(3, argv.data()).problem, "--mode: missing value");
}

TEST(ModelArgsTest, RepeatedSweepsBecomeOneList) {
  // `fit --sweep 8 --sweep 12` used to fit sweep 12 alone.
  std::vector<std::string> in = {"powersweep", "fit",      "--sweep", "8",
                                 "--format",   "json",     "--sweep=12,14"};
  std::vector<char*> argv;
  for (std::string& s : in) argv.push_back(s.data());
  PreparedArgs p = PrepareArgs(static_cast<int>(argv.size()), argv.data());
  EXPECT_TRUE(p.problem.empty());
  EXPECT_THAT(p.args, ElementsAre("powersweep", "--sweep=8,12,14", "fit",
                                  "--format", "json"));
  EXPECT_THAT(*ParseSweepsFlag("8,12,14"), ElementsAre(8, 12, 14));
  EXPECT_THAT(*ParseSweepsFlag(" 8, 12 ,8"), ElementsAre(8, 12));
  EXPECT_TRUE(ParseSweepsFlag("")->empty());
  for (const char* bad : {"8,x", "0", "-3", "8;12"}) {
    absl::StatusOr<std::vector<int64_t>> parsed = ParseSweepsFlag(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr("--sweep: '")) << bad;
  }
  std::vector<std::string> missing = {"powersweep", "fit", "--sweep"};
  std::vector<char*> argv2;
  for (std::string& s : missing) argv2.push_back(s.data());
  EXPECT_EQ(PrepareArgs(3, argv2.data()).problem, "--sweep: missing value");
}

}  // namespace
}  // namespace powersweep
