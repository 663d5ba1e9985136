// Lab operations through a real controller, real twin agents and the real
// CLI on loopback: draining and undraining a device, forgetting one, an
// agent failing its health check (a twin told its board is at 120 C) and
// passing again, rerunning the runs a killed agent left failed, and a
// controller restart that says which sweeps it resumes.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;

// Twin runs of about `wall_s` seconds each (time scale 0.01).
v1::SweepSpec TwinSweep(const std::string& name, int runs, double wall_s) {
  v1::SweepSpec spec = OrinTwinSweep(name, v1::TASK_TRAIN, runs, 0);
  spec.clear_minibatches();
  spec.set_duration_s(wall_s / 0.01);
  spec.set_timeout_s(600);
  spec.set_max_retries(0);
  return spec;
}

class LabOpsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(fleet_.ok()) << fleet_.Logs(); }

  void StartTwin(const std::string& id, int instance,
                 std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "--platform=twin", "--device_class=orin-agx",
        "--instance=" + std::to_string(instance), "--twin_time_scale=0.01"};
    args.insert(args.end(), extra.begin(), extra.end());
    fleet_.StartAgent(id, args);
  }
  std::optional<v1::DeviceStatus> Device(const std::string& id) {
    for (const v1::DeviceStatus& d : fleet_.ListDevices()) {
      if (d.identity().device_id() == id) return d;
    }
    return std::nullopt;
  }
  bool Connected(const std::string& id) {
    std::optional<v1::DeviceStatus> d = Device(id);
    return d.has_value() && d->connected();
  }
  // Runs the CLI with `args`; returns its exit code and output.
  std::pair<int, std::string> Cli(const std::string& name,
                                  std::vector<std::string> args) {
    args.insert(args.begin(),
                {POWERSWEEP_CLI_BIN, "--controller=" + fleet_.address()});
    Subprocess p(args, fleet_.dir() + "/cli-" + name + ".log");
    const int status = p.Wait();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, p.Log()};
  }
  int RunsOn(int64_t sweep, const std::string& device) {
    int n = 0;
    for (const v1::RunStatus& r : fleet_.ListRuns(sweep)) {
      n += r.device_id() == device;
    }
    return n;
  }
  bool Finished(int64_t sweep, double timeout_s) {
    return LocalFleet::WaitFor([&] { return fleet_.GetSweep(sweep).finished(); },
                               timeout_s);
  }

  LocalFleet fleet_;
};

TEST_F(LabOpsTest, ADrainedTwinFinishesItsRunTakesNoOtherAndUndrainedTakesRuns) {
  StartTwin("twin-a", 0);
  StartTwin("twin-b", 1);
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return Connected("twin-a") && Connected("twin-b"); }, 20))
      << fleet_.Logs();
  const int64_t sweep = fleet_.Submit(TwinSweep("it-lab-drain", 6, 1.0));
  ASSERT_GT(sweep, 0);
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return Device("twin-a")->current_run_id() != 0; }, 20))
      << fleet_.Logs();

  auto [rc, out] = Cli("drain", {"devices", "drain", "twin-a"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("device twin-a drained: it takes no new runs"));
  const int64_t drained_at_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  ASSERT_TRUE(Finished(sweep, 30)) << fleet_.Logs();

  // The run it held ended normally; every later run went to twin-b.
  EXPECT_EQ(fleet_.GetSweep(sweep).done(), 6);
  int on_a = 0;
  for (const v1::RunStatus& r : fleet_.ListRuns(sweep)) {
    if (r.device_id() != "twin-a") continue;
    ++on_a;
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE);
    EXPECT_LT(r.started_unix_ms(), drained_at_ms);
  }
  EXPECT_GE(on_a, 1);
  EXPECT_GE(RunsOn(sweep, "twin-b"), 6 - on_a);
  EXPECT_TRUE(Device("twin-a")->drained());
  auto [list_rc, listing] = Cli("devices", {"devices"});
  EXPECT_EQ(list_rc, 0) << listing;
  EXPECT_THAT(listing, HasSubstr("drained"));

  auto [undrain_rc, undrain_out] = Cli("undrain", {"devices", "undrain", "twin-a"});
  ASSERT_EQ(undrain_rc, 0) << undrain_out;
  EXPECT_THAT(undrain_out, HasSubstr("twin-a undrained"));
  const int64_t again = fleet_.Submit(TwinSweep("it-lab-undrain", 4, 0.5));
  ASSERT_GT(again, 0);
  ASSERT_TRUE(Finished(again, 30)) << fleet_.Logs();
  EXPECT_EQ(fleet_.GetSweep(again).done(), 4);
  EXPECT_GE(RunsOn(again, "twin-a"), 1);
}

TEST_F(LabOpsTest, AForgottenTwinVanishesUntilItsAgentComesBack) {
  StartTwin("twin-c", 2);
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected("twin-c"); }, 20))
      << fleet_.Logs();
  auto [busy_rc, busy_out] = Cli("forget-live", {"devices", "forget", "twin-c"});
  EXPECT_EQ(busy_rc, 1);
  EXPECT_THAT(busy_out, HasSubstr("device twin-c is connected; stop its "
                                  "agent or drain it first"));
  auto [unknown_rc, unknown_out] =
      Cli("forget-unknown", {"devices", "forget", "no-such-twin"});
  EXPECT_EQ(unknown_rc, 1);
  EXPECT_THAT(unknown_out, HasSubstr("unknown device 'no-such-twin'"));

  fleet_.agent("twin-c")->Kill(SIGTERM);
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return !Connected("twin-c"); }, 20))
      << fleet_.Logs();
  auto [rc, out] = Cli("forget", {"devices", "forget", "twin-c"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("device twin-c forgotten"));
  EXPECT_FALSE(Device("twin-c").has_value());
  // Sweeps are no longer validated against it.
  v1::SweepSpec placed = TwinSweep("it-lab-forgotten", 1, 0.2);
  placed.add_devices("twin-c");
  std::string error;
  EXPECT_EQ(fleet_.Submit(placed, &error), 0);
  EXPECT_THAT(error, HasSubstr("twin-c"));

  StartTwin("twin-c", 2);
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected("twin-c"); }, 20))
      << fleet_.Logs();
  EXPECT_THAT(fleet_.Logs(),
              HasSubstr("device twin-c was forgotten and its agent registered "
                        "again: it is listed again"));
}

TEST_F(LabOpsTest, AnOverheatedTwinGetsNoRunsUntilItsHealthCheckPasses) {
  const std::string temp_file = fleet_.dir() + "/twin-d-temperature";
  StartTwin("twin-d", 3, {"--twin_temperature_file=" + temp_file});
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected("twin-d"); }, 20))
      << fleet_.Logs();
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return Device("twin-d")->health().healthy(); }, 10));

  std::ofstream(temp_file) << "120\n";
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return !Device("twin-d")->health().healthy(); }, 10))
      << fleet_.Logs();
  EXPECT_EQ(Device("twin-d")->health().reason(),
            "board temperature 120.0 C is at or above the limit of 95 C "
            "(--health_max_temp_c)");
  auto [list_rc, listing] = Cli("devices-hot", {"devices"});
  EXPECT_THAT(listing, HasSubstr("FAILING: board temperature 120.0 C"));

  const int64_t sweep = fleet_.Submit(TwinSweep("it-lab-health", 2, 0.3));
  ASSERT_GT(sweep, 0);
  // Several heartbeats (0.5 s) go by: nothing is handed to it.
  EXPECT_FALSE(LocalFleet::WaitFor(
      [&] { return fleet_.GetSweep(sweep).pending() < 2; }, 2.5));
  EXPECT_EQ(Device("twin-d")->current_run_id(), 0);

  std::remove(temp_file.c_str());
  ASSERT_TRUE(Finished(sweep, 20)) << fleet_.Logs();
  EXPECT_EQ(fleet_.GetSweep(sweep).done(), 2);
  EXPECT_EQ(RunsOn(sweep, "twin-d"), 2);
  EXPECT_TRUE(Device("twin-d")->health().healthy());
  EXPECT_THAT(fleet_.Logs(),
              HasSubstr("device twin-d passes its health check again"));
}

TEST_F(LabOpsTest, RerunRunsTheFailedRunAgainAsAttemptTwoKeepingAttemptOne) {
  StartTwin("twin-e", 4);
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected("twin-e"); }, 20))
      << fleet_.Logs();
  const int64_t sweep = fleet_.Submit(TwinSweep("it-lab-rerun", 2, 3.0));
  ASSERT_GT(sweep, 0);
  int64_t victim = 0;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        for (const v1::RunStatus& r : fleet_.ListRuns(sweep)) {
          if (r.state() == v1::RUN_STATE_RUNNING &&
              r.summary().minibatches() > 0) {
            victim = r.spec().run_id();
            return true;
          }
        }
        return false;
      },
      20))
      << fleet_.Logs();
  // The device dies mid-run; max_retries 0: the run ends failed.
  fleet_.agent("twin-e")->Kill(SIGKILL);
  StartTwin("twin-e", 4);
  ASSERT_TRUE(Finished(sweep, 30)) << fleet_.Logs();
  EXPECT_EQ(fleet_.GetSweep(sweep).failed(), 1);
  const std::string where = " WHERE run_id = " + std::to_string(victim);
  const double attempt1_rows = QueryNumber(
      fleet_.db_path(), "SELECT COUNT(*) FROM minibatches" + where +
                            " AND attempt = 1");
  EXPECT_GT(attempt1_rows, 0);

  auto [rc, out] = Cli("rerun", {"rerun", "--sweep=" + std::to_string(sweep),
                                 "--failed"});
  ASSERT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("re-queued 1 failed run of sweep " +
                             std::to_string(sweep) + " as a new attempt"));
  ASSERT_TRUE(Finished(sweep, 30)) << fleet_.Logs();
  const v1::SweepStatus status = fleet_.GetSweep(sweep);
  EXPECT_EQ(status.done(), 2);
  EXPECT_EQ(status.failed(), 0);
  for (const v1::RunStatus& r : fleet_.ListRuns(sweep)) {
    EXPECT_EQ(r.state(), v1::RUN_STATE_DONE);
    EXPECT_EQ(r.spec().attempt(), r.spec().run_id() == victim ? 2 : 1);
  }
  // Attempt 1's records are still there, beside attempt 2's.
  EXPECT_EQ(QueryNumber(fleet_.db_path(), "SELECT COUNT(*) FROM minibatches" +
                                              where + " AND attempt = 1"),
            attempt1_rows);
  EXPECT_GT(QueryNumber(fleet_.db_path(), "SELECT COUNT(*) FROM minibatches" +
                                              where + " AND attempt = 2"),
            0);
  // Nothing else to rerun.
  auto [again_rc, again_out] =
      Cli("rerun-again", {"rerun", "--sweep=" + std::to_string(sweep)});
  EXPECT_EQ(again_rc, 0);
  EXPECT_THAT(again_out, HasSubstr("re-queued 0 failed or cancelled runs"));
}

TEST_F(LabOpsTest, ARestartedControllerSaysWhatItResumesAndNothingFails) {
  StartTwin("twin-f", 5);
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return Connected("twin-f"); }, 20))
      << fleet_.Logs();
  const int64_t sweep = fleet_.Submit(TwinSweep("it-lab-resume", 3, 1.5));
  ASSERT_GT(sweep, 0);
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet_.GetSweep(sweep).active() == 1; }, 20));
  fleet_.StopController(SIGKILL);
  auto count = [&](const std::string& states) {
    return static_cast<int>(QueryNumber(
        fleet_.db_path(), "SELECT COUNT(*) FROM runs WHERE state IN (" +
                              states + ")"));
  };
  const int pending = count("'pending'");
  const int in_flight = count("'leased', 'running'");
  ASSERT_EQ(in_flight, 1);
  ASSERT_TRUE(fleet_.RestartController()) << fleet_.Logs();
  EXPECT_THAT(fleet_.Logs(),
              HasSubstr("resuming sweep " + std::to_string(sweep) +
                        " 'it-lab-resume': " + std::to_string(pending) +
                        " pending, 1 in flight (their agents have 30s to "
                        "reconnect)"));
  ASSERT_TRUE(Finished(sweep, 40)) << fleet_.Logs();
  EXPECT_EQ(fleet_.GetSweep(sweep).done(), 3);
  auto [rc, out] = Cli("status", {"status"});
  EXPECT_EQ(rc, 0) << out;
  EXPECT_THAT(out, HasSubstr("finished"));
  auto [watch_rc, watch_out] =
      Cli("watch", {"watch", std::to_string(sweep)});
  EXPECT_EQ(watch_rc, 0) << watch_out;
  EXPECT_THAT(watch_out, HasSubstr("3 done, 0 failed, 0 cancelled"));
}

}  // namespace
}  // namespace powersweep::testing
