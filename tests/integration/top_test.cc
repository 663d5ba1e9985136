// `powersweep top` as a user sees it: the CLI runs in a real terminal
// (tmux) against a real controller with two twin agents, one of them
// running a sweep; the screen must show both devices with their state,
// their power labelled simulated, and the sweep's progress, refreshed.
#include <cstdio>
#include <regex>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

// Runs `command` in a shell and returns what it printed (stdout).
std::string Capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// A tmux server of the test's own (its socket in the fleet's temp dir).
class Tmux {
 public:
  explicit Tmux(const std::string& dir) : socket_(dir + "/tmux.sock") {}
  ~Tmux() { Capture(Cmd("kill-server") + " 2>/dev/null"); }
  bool Start(const std::string& command) {
    return std::system((Cmd("new-session -d -s top -x 160 -y 40 ") + "'" +
                        command + "'")
                           .c_str()) == 0;
  }
  std::string Screen() { return Capture(Cmd("capture-pane -p -t top")); }

 private:
  std::string Cmd(const std::string& args) const {
    return "tmux -S " + socket_ + " " + args;
  }
  std::string socket_;
};

TEST(TopTest, LiveViewShowsEveryDeviceItsStatePowerAndTheSweep) {
  ASSERT_EQ(std::system("command -v tmux >/dev/null"), 0)
      << "tmux is missing (infra/scripts/install-deps.sh installs it)";
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  for (int i = 0; i < 2; ++i) {
    // Simulated time at wall speed, so a run lasts long enough to be seen.
    fleet.StartAgent("orin-" + std::to_string(i),
                     {"--platform=twin", "--device_class=orin-agx",
                      "--instance=" + std::to_string(i),
                      "--twin_time_scale=1"});
  }
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        int connected = 0;
        for (const auto& d : fleet.ListDevices()) connected += d.connected();
        return connected == 2;
      },
      20))
      << fleet.Logs();
  std::string error;
  const int64_t sweep = fleet.Submit(
      OrinTwinSweep("top-view", v1::TASK_TRAIN, 1, 4000), &error);
  ASSERT_GT(sweep, 0) << error;

  Tmux tmux(fleet.dir());
  ASSERT_TRUE(tmux.Start(std::string(POWERSWEEP_CLI_BIN) +
                         " --controller=" + fleet.address() +
                         " top --interval_s=0.3"));
  // The running device's row: "run N", a power figure and its source.
  const std::regex running_row(
      R"(orin-\d\s+orin-agx\s+run \d+\s+\d+\.\d\d\s+simulated)");
  const std::regex idle_row(
      R"(orin-\d\s+orin-agx\s+idle\s+\d+\.\d\d\s+simulated)");
  std::string screen;
  const bool seen = LocalFleet::WaitFor(
      [&] {
        screen = tmux.Screen();
        return std::regex_search(screen, running_row) &&
               std::regex_search(screen, idle_row);
      },
      30);
  ASSERT_TRUE(seen) << "screen:\n" << screen << fleet.Logs();
  EXPECT_THAT(screen, HasSubstr("powersweep top  " + fleet.address()));
  EXPECT_THAT(screen, HasSubstr("2 devices: 2 connected, 1 running"));
  EXPECT_THAT(screen, HasSubstr("sweep " + std::to_string(sweep) +
                                " 'top-view': 0/1 done, 1 running"));
  EXPECT_THAT(screen, HasSubstr("Ctrl-C quits"));
  // It refreshes: the clock in the header changes.
  const std::regex clock(R"(\d\d:\d\d:\d\d)");
  std::smatch first;
  ASSERT_TRUE(std::regex_search(screen, first, clock));
  const std::string t0 = first.str();
  EXPECT_TRUE(LocalFleet::WaitFor(
      [&] {
        std::smatch now;
        const std::string s = tmux.Screen();
        return std::regex_search(s, now, clock) && now.str() != t0;
      },
      5))
      << tmux.Screen();
}

}  // namespace
}  // namespace powersweep::testing
