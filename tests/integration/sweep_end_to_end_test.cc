// A real controller and a real agent on loopback run a sweep of real LeNet
// training runs on Fashion-MNIST; the test checks what a user would see in
// the database afterwards.
#include <string>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

constexpr int kMinibatches = 60;
constexpr double kTelemetryHz = 20;

v1::SweepSpec FourTrainingRuns() {
  v1::SweepSpec spec;
  spec.set_name("it-four-runs");
  spec.add_device_classes("host");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(0);
  spec.add_loader_workers(2);
  spec.add_power_modes()->set_cpu_cores(1);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(2);
  spec.set_minibatches(kMinibatches);
  spec.set_seed(7);
  spec.set_telemetry_hz(kTelemetryHz);
  spec.set_timeout_s(120);
  return spec;
}

TEST(SweepEndToEndTest, EveryRunIsDoneWithItsRecordsTelemetryAndFallingLoss) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("it-host-0");
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        auto devices = fleet.ListDevices();
        return devices.size() == 1 && devices[0].connected();
      },
      20))
      << fleet.Logs();

  std::string error;
  int64_t sweep = fleet.Submit(FourTrainingRuns(), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor([&] { return fleet.GetSweep(sweep).finished(); },
                                  240))
      << fleet.Logs();

  auto runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 4u);
  const std::string db = fleet.db_path();
  for (const auto& run : runs) {
    const int64_t id = run.spec().run_id();
    SCOPED_TRACE("run " + std::to_string(id));
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE) << run.reason() << fleet.Logs();
    EXPECT_EQ(run.device_id(), "it-host-0");
    const std::string where = " WHERE run_id = " + std::to_string(id);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM minibatches" + where),
              kMinibatches);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(DISTINCT idx) FROM minibatches" +
                                  where),
              kMinibatches);
    // Telemetry covers the run at the configured rate (within 20%).
    const double duration =
        QueryNumber(db, "SELECT duration_s FROM run_results" + where);
    const double samples =
        QueryNumber(db, "SELECT COUNT(*) FROM telemetry" + where);
    ASSERT_GT(duration, 0);
    EXPECT_NEAR(samples, duration * kTelemetryHz, 0.2 * duration * kTelemetryHz)
        << "duration " << duration << " s";
    const double last_t =
        QueryNumber(db, "SELECT MAX(t_s) FROM telemetry" + where);
    EXPECT_GT(last_t, 0.8 * duration);
    // The loss fell: mean of the last 10 minibatches below the first 10.
    const double first = QueryNumber(
        db, "SELECT AVG(loss) FROM (SELECT loss FROM minibatches" + where +
                " ORDER BY idx LIMIT 10)");
    const double last = QueryNumber(
        db, "SELECT AVG(loss) FROM (SELECT loss FROM minibatches" + where +
                " ORDER BY idx DESC LIMIT 10)");
    EXPECT_LT(last, first);
    // Timing arithmetic holds in the stored records.
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM minibatches" + where +
                                  " AND stall_s + compute_s > e2e_s + 1e-9"),
              0);
    // Provenance recorded.
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM run_results" + where +
                                  " AND framework_version LIKE '1.%'"
                                  " AND binary_fingerprint != ''"),
              1);
  }
}

TEST(SweepEndToEndTest, RejectedSweepNamesTheFieldAndStoresNothing) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  v1::SweepSpec spec = FourTrainingRuns();
  spec.set_batch_sizes(0, 0);
  spec.set_models(0, "resnet9");
  std::string error;
  EXPECT_EQ(fleet.Submit(spec, &error), 0);
  EXPECT_NE(error.find("batch_sizes[0]"), std::string::npos) << error;
  EXPECT_NE(error.find("models[0]"), std::string::npos) << error;
  EXPECT_EQ(QueryNumber(fleet.db_path(), "SELECT COUNT(*) FROM sweeps"), 0);
  EXPECT_EQ(QueryNumber(fleet.db_path(), "SELECT COUNT(*) FROM runs"), 0);
}

}  // namespace
}  // namespace powersweep::testing
