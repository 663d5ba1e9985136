// A real controller and a real agent on loopback run a sweep of real LeNet
// training runs on Fashion-MNIST; the test checks what a user would see in
// the database afterwards.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

constexpr int kMinibatches = 60;
constexpr double kTelemetryHz = 20;

// Joules of the piecewise-linear power trace `points` (t_s, mW; sorted)
// over the union of `intervals`: the stall/compute split recomputed from
// the database alone, as a user would (docs/ARCHITECTURE.md, "Energy").
double JoulesOver(const std::vector<std::pair<double, double>>& points,
                  std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& iv : intervals) {
    if (!merged.empty() && iv.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else if (iv.second > iv.first) {
      merged.push_back(iv);
    }
  }
  auto power_at = [&](size_t i, double t) {  // on segment i..i+1
    const auto& [t0, p0] = points[i];
    const auto& [t1, p1] = points[i + 1];
    return t1 > t0 ? p0 + (p1 - p0) * (t - t0) / (t1 - t0) : p0;
  };
  double mj = 0;
  for (const auto& [a, b] : merged) {
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      const double lo = std::max(a, points[i].first);
      const double hi = std::min(b, points[i + 1].first);
      if (hi <= lo) continue;
      mj += (power_at(i, lo) + power_at(i, hi)) / 2 * (hi - lo);
    }
  }
  return mj / 1000;
}

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
    // The stall/compute energy split is recomputed from the database: the
    // power readings, the minibatches' phases on the workload clock, and
    // run_results.workload_offset_s. It does not add up to energy_j
    // (start-up and record writing are in neither phase).
    const auto offset_rows =
        Query(db, "SELECT workload_offset_s, energy_stall_j, energy_compute_j,"
                  " energy_j FROM run_results" + where);
    ASSERT_EQ(offset_rows.size(), 1u);
    ASSERT_FALSE(offset_rows[0][0].empty()) << "workload_offset_s is NULL";
    const double offset = std::stod(offset_rows[0][0]);
    const double stored_stall = std::stod(offset_rows[0][1]);
    const double stored_compute = std::stod(offset_rows[0][2]);
    const double stored_total = std::stod(offset_rows[0][3]);
    EXPECT_GT(offset, 0) << "the workload starts after the agent's run clock";
    std::vector<std::pair<double, double>> power;
    for (const auto& row :
         Query(db, "SELECT t_s, power_mw FROM telemetry" + where +
                       " AND power_mw > 0 ORDER BY t_s")) {
      power.emplace_back(std::stod(row[0]), std::stod(row[1]));
    }
    std::vector<std::pair<double, double>> stall, compute;
    for (const auto& row :
         Query(db, "SELECT t_start_s + e2e_s, stall_s, compute_s FROM"
                   " minibatches" + where)) {
      const double end = offset + std::stod(row[0]);
      const double c = std::stod(row[2]);
      compute.emplace_back(end - c, end);
      stall.emplace_back(end - c - std::stod(row[1]), end - c);
    }
    ASSERT_GT(stored_compute, 0);
    EXPECT_NEAR(JoulesOver(power, compute), stored_compute,
                1e-6 * stored_compute);
    EXPECT_NEAR(JoulesOver(power, stall), stored_stall,
                1e-6 * std::max(stored_compute, stored_stall));
    EXPECT_LT(stored_stall + stored_compute, stored_total);
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
