// A controller stopped (SIGSTOP) past three heartbeats in the middle of a
// sweep, then continued: no agent did anything wrong, so no run may fail
// for it (max_retries is 0 here, so a wrongly failed run stays failed).
// Before the controller noticed its own pauses, every in-flight run was
// failed "agent X disconnected (silent for ...)" within milliseconds of
// SIGCONT (here, without the fix, 1 of 2 in flight in some trials: it is
// a race between the controller's liveness thread and the gRPC threads
// that read the agents' queued heartbeats). The time from SIGCONT to the
// sweep's end is printed.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

std::vector<std::string> Twin(int instance) {
  return {"--platform=twin", "--device_class=orin-agx",
          "--instance=" + std::to_string(instance), "--twin_time_scale=0.2",
          "--log_level=warning"};
}

TEST(ControllerPauseTest, AStoppedControllerBlamesNoAgent) {
  LocalFleet fleet;  // heartbeats every 0.5 s: silent = 1.5 s
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("orin-agx-twin-0", Twin(0));
  fleet.StartAgent("orin-agx-twin-1", Twin(1));
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.ListDevices().size() == 2; }, 30))
      << fleet.Logs();
  std::string error;
  const int64_t sweep = fleet.Submit(
      OrinTwinSweep("it-pause", v1::TASK_INFER, 8, 20), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).active() == 2; }, 30))
      << fleet.Logs();

  fleet.controller()->Kill(SIGSTOP, /*wait=*/false);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // 8 heartbeats
  fleet.controller()->Kill(SIGCONT, /*wait=*/false);
  const auto resumed = std::chrono::steady_clock::now();

  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 120))
      << fleet.Logs();
  const double s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - resumed)
                       .count();
  const v1::SweepStatus status = fleet.GetSweep(sweep);
  EXPECT_EQ(status.done(), 8) << fleet.Logs();
  EXPECT_EQ(status.failed(), 0) << fleet.Logs();
  std::printf("controller stopped 4 s (8 heartbeats) with 2 runs in flight: "
              "%d done, %d failed; the sweep ended %.2f s after SIGCONT\n",
              static_cast<int>(status.done()),
              static_cast<int>(status.failed()), s);
}

}  // namespace
}  // namespace powersweep::testing
