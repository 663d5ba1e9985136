// A GPU host through NVML, end to end: a real controller and a real host
// agent whose NVML is the fake libnvidia-ml the tests build
// (tests/agent/platform/host/fake_nvml). A sweep over GPU power limits and a
// locked SM clock runs real LeNet-5 training; the database holds the GPU's
// measured rail, the applied knobs and the GPU's energy counter, and the GPU
// is back at its own settings afterwards. Values a GPU cannot take, and GPU
// knobs on a host without NVML, are refused at submit naming the field.
#include <stdlib.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/agent/platform/host/fake_nvml/fake_nvml_state.h"
#include "tests/integration/local_fleet.h"
#include "tests/integration/sqlite_query.h"

namespace powersweep::testing {
namespace {

namespace fake = ::powersweep::testing_nvml;

v1::SweepSpec GpuModes() {
  v1::SweepSpec spec;
  spec.set_name("gpu-host-modes");
  spec.add_device_classes("host");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.add_batch_sizes(32);
  spec.add_loader_workers(0);
  v1::PowerMode* low = spec.add_power_modes();
  low->set_cpu_cores(1);
  low->set_gpu_power_limit_w(300);
  low->set_gpu_freq_hz(990'000'000);
  v1::PowerMode* mid = spec.add_power_modes();
  mid->set_cpu_cores(1);
  mid->set_gpu_power_limit_w(450);
  spec.add_runtimes(v1::RUNTIME_NATIVE);
  spec.set_minibatches(30);
  spec.set_seed(3);
  spec.set_telemetry_hz(20);
  spec.set_timeout_s(120);
  return spec;
}

TEST(GpuHostSweepTest, GpuModesRunWithTheGpuMeasuredAndAreUndoneAfter) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  const std::string state = fleet.dir() + "/fake-nvml-state";
  fake::State h100 = fake::H100();
  h100["energy_t0"] = "0";  // the counter grows at the read power
  fake::Write(state, h100);  // sets $FAKE_NVML_STATE, which the agent inherits
  fleet.StartAgent("gpu-host-0",
                   {std::string("--nvml_library=") + FAKE_NVML_LIBRARY});
  ASSERT_TRUE(fleet.WaitConnected(1)) << fleet.Logs();
  const std::vector<v1::DeviceStatus> devices = fleet.ListDevices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].capabilities().gpu_name(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(devices[0].capabilities().gpu_power_limit_max_w(), 700);

  // Out of range, or a clock the GPU does not list: refused, nothing stored.
  v1::SweepSpec bad = GpuModes();
  bad.mutable_power_modes(1)->set_gpu_power_limit_w(800);
  bad.mutable_power_modes(0)->set_gpu_freq_hz(1'000'000'000);
  std::string error;
  EXPECT_EQ(fleet.Submit(bad, &error), 0);
  EXPECT_NE(error.find("power_modes[1].gpu_power_limit_w: 800 W is outside "
                       "the range of every registered host GPU (200..700 W)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("power_modes[0].gpu_freq_hz: 1000000000 is not an SM "
                       "clock any registered host GPU supports (nearest: "
                       "990000000"),
            std::string::npos)
      << error;

  const int64_t sweep = fleet.Submit(GpuModes(), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 240))
      << fleet.Logs();
  const std::string db = fleet.db_path();
  const std::vector<v1::RunStatus> runs = fleet.ListRuns(sweep);
  ASSERT_EQ(runs.size(), 2u);
  // The fake reports min(250 W, limit), scaled by the locked clock / 1980.
  const double expected_gpu_mw[] = {250000.0 * 990 / 1980, 250000.0};
  const int expected_limit[] = {300, 450};
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string id = std::to_string(runs[i].spec().run_id());
    SCOPED_TRACE("run " + id);
    ASSERT_EQ(runs[i].state(), v1::RUN_STATE_DONE)
        << runs[i].reason() << fleet.Logs();
    const std::string where = " WHERE run_id = " + id;
    EXPECT_EQ(QueryNumber(db, "SELECT json_extract(applied_mode_json,"
                              " '$.actual.gpu_power_limit_w') FROM runs" +
                                  where),
              expected_limit[i]);
    // Every sample has the GPU's rail at the fake's power.
    const double samples =
        QueryNumber(db, "SELECT COUNT(*) FROM telemetry" + where);
    EXPECT_GT(samples, 2);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM telemetry_rails" + where +
                                  " AND rail = 'gpu-nvml'"),
              samples);
    EXPECT_DOUBLE_EQ(QueryNumber(db, "SELECT AVG(power_mw) FROM"
                                     " telemetry_rails" + where +
                                     " AND rail = 'gpu-nvml'"),
                     expected_gpu_mw[i]);
    EXPECT_EQ(QueryNumber(db, "SELECT COUNT(*) FROM telemetry_temperatures" +
                                  where + " AND zone = 'GPU'"),
              samples);
    // The total adds the CPU's modeled figure to the GPU's.
    EXPECT_GT(QueryNumber(db, "SELECT MIN(power_mw) FROM telemetry" + where),
              expected_gpu_mw[i]);
    // The GPU's own energy counter, read at the run's start and end: about
    // the GPU's power over the run.
    const double counter = QueryNumber(
        db, "SELECT json_extract(result_json, '$.gpu_counter_energy_j') FROM"
            " run_results" + where);
    const double duration =
        QueryNumber(db, "SELECT duration_s FROM run_results" + where);
    EXPECT_GT(counter, 0.5 * expected_gpu_mw[i] / 1000 * duration);
    EXPECT_LT(counter, 2.0 * expected_gpu_mw[i] / 1000 * duration + 50);
  }
  // After the sweep the GPU is at its own limit, its clocks unlocked.
  fake::State after = fake::Read(state);
  EXPECT_EQ(after["limit_mw"], "700000");
  EXPECT_EQ(after["locked_mhz"], "0");
}

TEST(GpuHostSweepTest, GpuKnobsOnAHostWithoutNvmlAreRefusedSayingWhy) {
  LocalFleet fleet;
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("cpu-host-0",
                   {"--nvml_library=" + fleet.dir() + "/no-libnvidia-ml.so"});
  ASSERT_TRUE(fleet.WaitConnected(1)) << fleet.Logs();
  std::string error;
  EXPECT_EQ(fleet.Submit(GpuModes(), &error), 0);
  EXPECT_NE(error.find("power_modes[0].gpu_freq_hz: no registered host device "
                       "can lock its GPU's SM clock (cpu-host-0: no NVML: "
                       "cannot open"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("power_modes[1].gpu_power_limit_w: no registered host "
                       "device can set its GPU's power limit"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace powersweep::testing
