// Killing the agent in the middle of a run: the run ends in a recorded
// failed state with a reason, and a restarted agent takes the next run.
#include <signal.h>

#include <string>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

v1::SweepSpec OneRun(const std::string& name, double duration_s,
                     int64_t minibatches) {
  v1::SweepSpec spec;
  spec.set_name(name);
  spec.add_device_classes("host");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(1);
  spec.add_power_modes()->set_cpu_cores(1);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(1);
  spec.set_duration_s(duration_s);
  spec.set_minibatches(minibatches);
  spec.set_telemetry_hz(10);
  spec.set_max_retries(0);
  return spec;
}

TEST(AgentCrashTest, KilledAgentFailsItsRunWithAReasonAndARestartTakesTheNext) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("crash-host");
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.ListDevices().size() == 1; }, 20))
      << fleet.Logs();

  const int64_t long_sweep = fleet.Submit(OneRun("long", 120, 0));
  const int64_t short_sweep = fleet.Submit(OneRun("short", 0, 20));
  ASSERT_GT(long_sweep, 0);
  ASSERT_GT(short_sweep, 0);

  // Wait until the long run is running and has sent some data.
  int64_t long_run = 0;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        auto runs = fleet.ListRuns(long_sweep);
        if (runs.size() != 1 || runs[0].state() != v1::RUN_STATE_RUNNING) {
          return false;
        }
        long_run = runs[0].spec().run_id();
        return runs[0].summary().minibatches() > 0;
      },
      60))
      << fleet.Logs();

  fleet.agent("crash-host")->Kill(SIGKILL);

  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(long_sweep).finished(); }, 30))
      << fleet.Logs();
  auto runs = fleet.ListRuns(long_sweep);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state(), v1::RUN_STATE_FAILED);
  EXPECT_NE(runs[0].reason().find("disconnected"), std::string::npos)
      << runs[0].reason();
  // The failure is in the run's state history with its reason.
  EXPECT_EQ(QueryNumber(fleet.db_path(),
                        "SELECT COUNT(*) FROM run_state_history WHERE run_id = " +
                            std::to_string(long_run) +
                            " AND to_state = 'failed' AND reason != ''"),
            1);
  // The short run waits: no agent is connected.
  EXPECT_EQ(fleet.GetSweep(short_sweep).pending(), 1);

  fleet.StartAgent("crash-host");
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(short_sweep).finished(); }, 90))
      << fleet.Logs();
  auto short_runs = fleet.ListRuns(short_sweep);
  ASSERT_EQ(short_runs.size(), 1u);
  EXPECT_EQ(short_runs[0].state(), v1::RUN_STATE_DONE) << short_runs[0].reason();
  EXPECT_EQ(short_runs[0].device_id(), "crash-host");
  EXPECT_EQ(short_runs[0].summary().minibatches(), 20);
}

}  // namespace
}  // namespace powersweep::testing
