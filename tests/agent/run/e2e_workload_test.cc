// End-to-end: the real powersweep-workload run by the agent's executor on
// the host platform, with the installed fashion-mnist dataset.
#include <filesystem>
#include <memory>
#include <vector>

#include "agent/platform/host/host_platform.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/recording_sink.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

constexpr char kDataset[] = "/usr/share/datasets/fashion-mnist";

TEST(EndToEnd, RealWorkloadRunsPinnedAndReportsItsMinibatches) {
  if (!std::filesystem::is_directory(kDataset)) {
    GTEST_SKIP() << kDataset << " is not installed";
  }
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", kDataset}};
  auto platform = HostPlatform::Create(HostPlatformOptions());
  ASSERT_TRUE(platform.ok()) << platform.status();
  RealClock clock;
  RunExecutorConfig cfg;
  cfg.workload_bin = REAL_WORKLOAD;
  cfg.work_dir = MakeTestDir("e2e_workload_test");
  cfg.batch_interval_s = 0.5;
  RunExecutor ex(cfg, &catalog, platform->get(), &clock,
                 [&clock] { return std::make_unique<NativeRuntime>(&clock); });
  v1::RunSpec spec;
  spec.set_run_id(5);
  spec.set_attempt(1);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_INFER);
  w->set_batch_size(64);
  w->set_minibatches(20);
  w->set_threads(1);
  spec.mutable_power_mode()->set_cpu_cores(1);
  spec.set_telemetry_hz(10);
  spec.set_timeout_s(300);
  RecordingSink sink;
  v1::RunFinished f = ex.Execute(spec, &sink);
  ASSERT_TRUE(f.result().ok()) << f.result().reason();
  EXPECT_EQ(f.result().provenance().framework(), "libtorch");
  EXPECT_EQ(f.result().applied_mode().actual().cpu_cores(), 1);
  const std::vector<v1::DataBatch> batches = sink.batches();
  EXPECT_EQ(static_cast<int64_t>(batches.size()), f.batches());
  int64_t records = 0;
  for (const auto& b : batches) {
    for (const auto& m : b.minibatches()) {
      EXPECT_LE(m.stall_s() + m.compute_s(), m.e2e_s() + 1e-9);
      ++records;
    }
    for (const auto& t : b.telemetry()) EXPECT_EQ(t.cores_size(), 1);
  }
  EXPECT_EQ(records, 20);
}

}  // namespace
}  // namespace powersweep
