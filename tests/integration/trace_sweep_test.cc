// Kernel event traces through the whole system: a sweep with `traces` is
// validated by the real controller, run by a real host agent (root, real
// powersweep-workload processes, perf_event_open on this kernel) and by a
// twin, and its traces land in run_traces: counted for the workload,
// missing with the reason where they cannot be (a baseload run has no
// process to follow; a twin simulates no kernel).
#include <string>
#include <vector>

#include <unistd.h>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

v1::SweepSpec TracedSweep(const std::string& device_class) {
  v1::SweepSpec spec;
  spec.set_name("it-traces-" + device_class);
  spec.add_device_classes(device_class);
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_tasks(v1::TASK_BASELOAD);
  spec.add_batch_sizes(16);
  spec.add_loader_workers(0);
  v1::PowerMode* mode = spec.add_power_modes();
  if (device_class == "host") {
    mode->set_cpu_cores(1);
  } else {
    mode->set_preset("MAXN");
  }
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(1);
  spec.set_minibatches(20);
  spec.set_duration_s(3);  // the baseload run; training stops at 20
  spec.set_seed(5);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(120);
  for (v1::Trace t : {v1::TRACE_SYSCALLS, v1::TRACE_BLOCK, v1::TRACE_WRITEBACK,
                      v1::TRACE_PAGE_FAULTS, v1::TRACE_SCHED}) {
    spec.add_traces(t);
  }
  return spec;
}

int64_t RunSweep(LocalFleet& fleet, const v1::SweepSpec& spec) {
  std::string error;
  const int64_t sweep = fleet.Submit(spec, &error);
  EXPECT_GT(sweep, 0) << error;
  EXPECT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 240))
      << fleet.Logs();
  for (const auto& run : fleet.ListRuns(sweep)) {
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE) << run.reason() << fleet.Logs();
  }
  return sweep;
}

std::string OfTask(int64_t sweep, const std::string& task) {
  return " FROM run_traces k JOIN runs r USING (run_id) WHERE r.sweep_id = " +
         std::to_string(sweep) + " AND r.task = '" + task + "'";
}

TEST(TraceSweepTest, AHostAgentTracesTheWorkloadAndTheSystem) {
  ASSERT_EQ(geteuid(), 0) << "kernel tracing needs root (CI runs as root)";
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
  const int64_t sweep = RunSweep(fleet, TracedSweep("host"));
  const std::string db = fleet.db_path();
  const std::string train = OfTask(sweep, "train");
  // The training run: its system calls (it writes a record line per
  // minibatch), faults and switches, nothing missing.
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*)" + train +
                                " AND k.missing_reason IS NOT NULL"),
            0);
  EXPECT_GE(QueryNumber(db, "SELECT k.count" + train +
                                " AND k.kind = 'syscalls' AND k.name = 'write'"),
            20);
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(DISTINCT k.scope)" + train +
                                " AND k.kind = 'syscalls'"),
            1);
  EXPECT_GT(QueryNumber(db, "SELECT k.count" + train +
                                " AND k.kind = 'page_faults' AND k.name = 'minor'"),
            1000);
  EXPECT_GT(QueryNumber(db, "SELECT k.count" + train +
                                " AND k.name = 'context_switches'"),
            0);
  // The result keeps the write-back settings and the tracer's cost.
  const auto json = Query(db, "SELECT res.result_json FROM run_results res"
                              " JOIN runs r USING (run_id) WHERE r.sweep_id = " +
                                  std::to_string(sweep) +
                                  " AND r.task = 'train'");
  ASSERT_EQ(json.size(), 1u);
  EXPECT_NE(json[0][0].find("dirty_writeback_centisecs"), std::string::npos);
  // The baseload run has no process to follow: the per-process traces are
  // missing with the reason, the system-wide ones are not.
  const std::string baseload = OfTask(sweep, "baseload");
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*)" + baseload +
                                " AND k.missing_reason LIKE '%no workload process%'"),
            3);
  EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*)" + baseload +
                                " AND k.kind IN ('block', 'writeback')"
                                " AND k.missing_reason IS NOT NULL"),
            0);
}

TEST(TraceSweepTest, ATwinRecordsEveryTraceAsMissing) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("it-orin-0", {"--platform=twin", "--device_class=orin-agx",
                                 "--instance=0", "--twin_time_scale=0"});
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        auto devices = fleet.ListDevices();
        return devices.size() == 1 && devices[0].connected();
      },
      20))
      << fleet.Logs();
  const int64_t sweep = RunSweep(fleet, TracedSweep("orin-agx"));
  const std::string train = OfTask(sweep, "train");
  EXPECT_EQ(QueryNumber(fleet.db_path(), "SELECT COUNT(*)" + train),
            5);
  EXPECT_EQ(QueryNumber(fleet.db_path(),
                        "SELECT COUNT(*)" + train +
                            " AND k.missing_reason LIKE 'a twin simulates no kernel%'"),
            5);
}

}  // namespace
}  // namespace powersweep::testing
