// DeepBench-style kernels through the whole system: a sweep of `KERNEL/SHAPE`
// workloads is validated by the real controller, run by a real host agent
// (real powersweep-workload processes) and by an orin-agx twin agent across
// two GPU clocks, and stored; a bad shape is refused at submit.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

constexpr int kIterations = 30;

const std::vector<std::string> kWorkloads = {
    "gemm/m128-n64-k96-tn",
    "conv/n2-c3-h16-w16-k8-r3-s3-pad1-bwd-filter",
    "rnn/gru-h32-b4-t5-fwdbwd",
    "rnn/deepbench-device-2",  // rnn_problems.h: (64, 1, 96, "vanilla")
};

v1::SweepSpec KernelSweep(const std::string& device_class) {
  v1::SweepSpec spec;
  spec.set_name("it-kernels-" + device_class);
  spec.add_device_classes(device_class);
  for (const std::string& w : kWorkloads) spec.add_workloads(w);
  spec.add_tasks(v1::TASK_INFER);
  spec.add_batch_sizes(1);
  spec.add_loader_workers(0);
  if (device_class == "host") {
    spec.add_power_modes()->set_cpu_cores(1);
  } else {
    for (int64_t gpu_hz : {306000000LL, 1300500000LL}) {
      v1::PowerMode* m = spec.add_power_modes();
      m->set_cpu_cores(4);
      m->set_gpu_freq_hz(gpu_hz);
    }
  }
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_repetitions(1);
  spec.set_minibatches(kIterations);
  spec.set_seed(5);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(120);
  return spec;
}

// Every run done, kIterations records of one sample each, the kernel's
// FLOPs / 2 in run_results.model_forward_macs, and the run summary's
// achieved GFLOP/s and launch rate.
void ExpectKernelRunsStored(LocalFleet& fleet, int64_t sweep,
                            size_t expected_runs) {
  auto runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), expected_runs);
  const std::string db = fleet.db_path();
  for (const auto& run : runs) {
    const int64_t id = run.spec().run_id();
    SCOPED_TRACE("run " + std::to_string(id) + " " +
                 run.spec().workload().model() + "/" +
                 run.spec().workload().dataset());
    EXPECT_EQ(run.state(), v1::RUN_STATE_DONE) << run.reason() << fleet.Logs();
    const std::string where = " WHERE run_id = " + std::to_string(id);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM minibatches" + where),
              kIterations);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM minibatches" + where +
                                  " AND (samples != 1 OR compute_s <= 0)"),
              0);
    EXPECT_GT(QueryNumber(db, "SELECT model_forward_macs FROM run_results" +
                                  where),
              0);
    const auto json =
        Query(db, "SELECT result_json FROM run_results" + where);
    ASSERT_EQ(json.size(), 1u);
    EXPECT_NE(json[0][0].find("\"launches\""), std::string::npos) << json[0][0];
    // What `runs` and `compare` show: achieved GFLOP/s = FLOPs (2 x the
    // stored MACs) over the mean compute time, and a launch rate.
    const double macs = QueryNumber(
        db, "SELECT model_forward_macs FROM run_results" + where);
    const double mean_compute = QueryNumber(
        db, "SELECT AVG(compute_s) FROM minibatches" + where);
    EXPECT_NEAR(run.summary().kernel_gflop_per_s(),
                2 * macs / mean_compute / 1e9,
                1e-6 * run.summary().kernel_gflop_per_s());
    EXPECT_GT(run.summary().kernel_launches_per_s(), 0);
  }
}

TEST(KernelSweepTest, AHostAgentRunsEachKernelFamily) {
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
  const int64_t sweep = fleet.Submit(KernelSweep("host"), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 240))
      << fleet.Logs();
  ExpectKernelRunsStored(fleet, sweep, kWorkloads.size());
  // gemm m128 n64 k96: 2 * 128 * 64 * 96 FLOPs, stored as MACs.
  EXPECT_EQ(QueryNumber(fleet.db_path(),
                        "SELECT r.model_forward_macs FROM run_results r JOIN "
                        "runs USING (run_id) WHERE runs.model = 'gemm' AND "
                        "runs.sweep_id = " + std::to_string(sweep)),
            128.0 * 64 * 96);
}

TEST(KernelSweepTest, TwinsSweepKernelsAcrossGpuClocks) {
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
  std::string error;
  const int64_t sweep = fleet.Submit(KernelSweep("orin-agx"), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 240))
      << fleet.Logs();
  ExpectKernelRunsStored(fleet, sweep, 2 * kWorkloads.size());
  // The gemm is compute bound: slower at the lower GPU clock.
  const std::string gemm_at =
      "SELECT AVG(m.compute_s) FROM minibatches m JOIN runs r USING (run_id)"
      " WHERE r.model = 'gemm' AND r.sweep_id = " + std::to_string(sweep) +
      " AND r.gpu_freq_hz = ";
  EXPECT_GT(QueryNumber(fleet.db_path(), gemm_at + "306000000"),
            QueryNumber(fleet.db_path(), gemm_at + "1300500000"));
}

TEST(KernelSweepTest, ABadShapeIsRefusedAtSubmitNamingTheEntry) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  v1::SweepSpec spec = KernelSweep("host");
  spec.add_workloads("conv/n8-c3-h2-w2-k4-r3-s3");
  std::string error;
  EXPECT_EQ(fleet.Submit(spec, &error), 0);
  EXPECT_NE(error.find("workloads[4]: conv shape 'n8-c3-h2-w2-k4-r3-s3': "
                       "the 3x3 filter does not fit the 2x2 input"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace powersweep::testing
