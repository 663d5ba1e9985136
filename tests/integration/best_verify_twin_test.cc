// `powersweep best --verify` end to end on twins: a real controller and two
// Xavier AGX twin agents; 8 planned modes are profiled and fitted through
// the CLI, then `best --verify 3 --max-epoch-time B` runs three rounds of
// one run each (a mode not measured before, then a refit) and answers
// from measurements. The
// answer must be a measured mode that meets the budget and that no other
// measured mode under the budget beats on energy (checked against the
// runs themselves), and the refitted model must rest on both sweeps.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common/power_mode_text.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/subprocess.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kClass[] = "xavier-agx";
constexpr double kMinibatchesPerEpoch = 937;  // fashion-mnist, batch 64

Finished RunCli(const LocalFleet& fleet, const std::vector<std::string>& args) {
  static int n = 0;
  std::vector<std::string> argv = {POWERSWEEP_CLI_BIN,
                                   "--controller=" + fleet.address()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunToEnd(argv, fleet.dir() + "/cli-" + std::to_string(++n) + ".log");
}

// Measured epoch time and energy of one mode: means over its done runs.
struct Measured {
  double time_s = 0, energy_j = 0;
  int runs = 0;
};

void AddRuns(LocalFleet& fleet, int64_t sweep,
             std::map<std::string, Measured>* by_mode) {
  for (const v1::RunStatus& r : fleet.ListRuns(sweep)) {
    ASSERT_EQ(r.state(), v1::RUN_STATE_DONE) << r.reason();
    const v1::RunSummary& s = r.summary();
    const double n = static_cast<double>(s.minibatches());
    const double t = s.mean_minibatch_s() * kMinibatchesPerEpoch;
    const double e =
        (s.energy_stall_j() + s.energy_compute_j()) / n * kMinibatchesPerEpoch;
    Measured& m = (*by_mode)[PowerModeText(r.spec().power_mode(), "-")];
    m.time_s = (m.time_s * m.runs + t) / (m.runs + 1);
    m.energy_j = (m.energy_j * m.runs + e) / (m.runs + 1);
    ++m.runs;
  }
}

// The text after `key` up to the end of its line.
std::string LineAfter(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return text.substr(from, text.find('\n', from) - from);
}

TEST(BestVerifyTwinTest, TheAnswerIsAMeasuredModeThatMeetsTheBudget) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < 2; ++i) {
    fleet.StartAgent(std::string(kClass) + "-twin-" + std::to_string(i),
                     {"--platform=twin", std::string("--device_class=") + kClass,
                      "--instance=" + std::to_string(i), "--twin_seed=1",
                      "--twin_time_scale=0", "--log_level=warning"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int connected = 0;
        for (const auto& d : fleet.ListDevices()) connected += d.connected();
        return connected == 2;
      },
      60))
      << fleet.Logs();

  const std::string plan_file = fleet.dir() + "/plan.yaml";
  Finished plan = RunCli(fleet, {"plan-profiling", "--device-class", kClass,
                                 "--modes", "8", "--workload", "lenet5",
                                 "--batch-size", "64", "--minibatches", "100",
                                 "--repetitions", "2", "--out", plan_file});
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  Finished submit = RunCli(fleet, {"--quiet", "submit", plan_file});
  ASSERT_EQ(submit.exit_code, 0) << submit.output;
  const int64_t profiled = std::atoll(submit.output.c_str());
  ASSERT_GT(profiled, 0) << submit.output;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(profiled).finished(); }, 120))
      << fleet.Logs();
  Finished fit = RunCli(fleet, {"fit", "--sweep", std::to_string(profiled)});
  ASSERT_EQ(fit.exit_code, 0) << fit.output;

  // A budget between the fastest and the slowest profiled mode.
  std::map<std::string, Measured> measured;
  AddRuns(fleet, profiled, &measured);
  ASSERT_EQ(measured.size(), 8u);
  double fastest = 1e300, slowest = 0;
  for (const auto& [mode, m] : measured) {
    fastest = std::min(fastest, m.time_s);
    slowest = std::max(slowest, m.time_s);
  }
  const double budget = fastest + 0.3 * (slowest - fastest);
  char budget_arg[32];
  std::snprintf(budget_arg, sizeof budget_arg, "%.3fs", budget);

  Finished verify = RunCli(
      fleet, {"best", "--workload", "lenet5", "--device-class", kClass,
              "--max-epoch-time", budget_arg, "--verify", "3"});
  std::printf("$ powersweep best --verify 3 --max-epoch-time %s\n%s\n",
              budget_arg, verify.output.c_str());
  ASSERT_EQ(verify.exit_code, 0) << verify.output << fleet.Logs();
  // Three rounds, each a sweep of one run of a mode not measured before.
  std::vector<int64_t> rounds;
  for (int r = 1; r <= 3; ++r) {
    const std::string line =
        LineAfter(verify.output, "round " + std::to_string(r) + ": ");
    const size_t at = line.find("(sweep ");
    ASSERT_NE(at, std::string::npos) << verify.output;
    rounds.push_back(std::atoll(line.c_str() + at + 7));
    ASSERT_EQ(fleet.ListRuns(rounds.back()).size(), 1u);
    const std::string mode =
        PowerModeText(fleet.ListRuns(rounds.back())[0].spec().power_mode(),
                      "-");
    EXPECT_FALSE(measured.count(mode)) << mode << " was run twice";
    AddRuns(fleet, rounds.back(), &measured);
  }
  EXPECT_THAT(verify.output, HasSubstr("runs: 16 profiled + 3 verification"));
  std::string sweeps = std::to_string(profiled);
  for (int64_t s : rounds) sweeps += ", " + std::to_string(s);
  EXPECT_THAT(verify.output, HasSubstr("runs of sweeps " + sweeps));

  // The answer against the runs: under the budget, and no measured mode
  // under the budget uses less energy.
  const std::string answer = LineAfter(verify.output, "verified best mode: ");
  ASSERT_TRUE(measured.count(answer)) << "'" << answer << "' was not run";
  const Measured& a = measured.at(answer);
  EXPECT_LE(a.time_s, budget * 1.0001);
  for (const auto& [mode, m] : measured) {
    if (m.time_s <= budget) {
      EXPECT_GE(m.energy_j, a.energy_j * 0.999) << mode << " beats " << answer;
    }
  }

  // The refitted model rests on both sweeps, and `models` says so.
  Finished models = RunCli(fleet, {"models", "--format", "csv"});
  std::string csv = std::to_string(profiled);
  for (int64_t s : rounds) csv += "," + std::to_string(s);
  EXPECT_THAT(models.output, HasSubstr("\"" + csv + "\""));
}

}  // namespace
}  // namespace powersweep::testing
