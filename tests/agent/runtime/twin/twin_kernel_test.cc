// Kernel runs on a twin: the argv the agent builds for `KERNEL/SHAPE`
// workloads, costed by TwinKernelShape and replayed by TwinRuntime.
#include <memory>
#include <string>
#include <vector>

#include "agent/run/catalog.h"
#include "agent/run/run_executor.h"
#include "agent/runtime/twin/twin_runtime.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::unique_ptr<TwinPlatform> Twin(int64_t gpu_hz) {
  TwinPlatformOptions o;
  o.device_class = "orin-agx";
  o.instance = 1;
  o.seed = 5;
  std::unique_ptr<TwinPlatform> twin = std::move(*TwinPlatform::Create(o));
  v1::PowerMode mode;
  mode.set_gpu_freq_hz(gpu_hz);
  EXPECT_TRUE(twin->Apply(mode).ok());
  return twin;
}

struct KernelRun {
  v1::WorkloadInfo info;
  std::vector<v1::MinibatchRecord> records;
  double mean_compute_s = 0;
};

KernelRun RunTwinKernel(const std::string& kernel, const std::string& shape,
              int64_t gpu_hz = 1300500000) {
  v1::RunSpec run;
  run.set_run_id(1);
  auto* w = run.mutable_workload();
  w->set_model(kernel);
  w->set_dataset(shape);
  w->set_task(v1::TASK_INFER);
  w->set_batch_size(1);
  w->set_minibatches(50);
  w->set_seed(3);
  Catalog catalog;
  RuntimeSpec spec;
  absl::StatusOr<std::vector<std::string>> argv =
      BuildWorkloadArgv("twin-model", catalog, run, 4);
  EXPECT_TRUE(argv.ok()) << argv.status();
  spec.argv = *argv;
  spec.timeout_s = 3600;
  FakeClock clock;
  auto twin = Twin(gpu_hz);
  TwinRuntime rt(twin.get(), &clock, TwinRuntimeOptions{0, 0.02});
  KernelRun out;
  absl::Status st = rt.Start(spec, [&out](const v1::WorkloadEvent& e) {
    if (e.has_started()) out.info = e.started().workload();
    if (e.has_minibatch()) out.records.push_back(e.minibatch());
  });
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(rt.Wait().FailureReason(), "");
  for (const auto& r : out.records) out.mean_compute_s += r.compute_s();
  if (!out.records.empty()) out.mean_compute_s /= out.records.size();
  return out;
}

TEST(TwinKernelTest, AKernelRunRecordsOneIterationPerRecordWithItsCost) {
  KernelRun g = RunTwinKernel("gemm", "deepbench-train-1");
  EXPECT_EQ(g.info.model(), "gemm");
  EXPECT_EQ(g.info.kernel().shape(), "m1760-n16-k1760-nn");
  EXPECT_DOUBLE_EQ(g.info.kernel().flops(), 2.0 * 1760 * 16 * 1760);
  EXPECT_EQ(g.info.forward_macs(), 1760LL * 16 * 1760);
  EXPECT_EQ(g.info.params(), 0);
  ASSERT_EQ(g.records.size(), 50u);
  for (const auto& r : g.records) {
    EXPECT_EQ(r.samples(), 1);
    EXPECT_GT(r.compute_s(), 0);
    EXPECT_LT(r.stall_s(), r.compute_s());
  }
}

TEST(TwinKernelTest, MoreWorkTakesLongerAndALowerGpuClockSlowsAComputeBoundKernel) {
  KernelRun small = RunTwinKernel("gemm", "m1760-n16-k1760");
  KernelRun big = RunTwinKernel("gemm", "m1760-n7000-k1760");
  EXPECT_GT(big.mean_compute_s, 10 * small.mean_compute_s);
  KernelRun slow = RunTwinKernel("gemm", "m1760-n7000-k1760", 306000000);
  EXPECT_GT(slow.mean_compute_s, 2 * big.mean_compute_s);
}

TEST(TwinKernelTest, GruLaunchesMoreKernelsPerIterationThanLstm) {
  KernelRun lstm = RunTwinKernel("rnn", "lstm-h512-b32-t25-fwdbwd");
  KernelRun gru = RunTwinKernel("rnn", "gru-h512-b32-t25-fwdbwd");
  EXPECT_GT(gru.info.kernel().launches(), lstm.info.kernel().launches());
  // Fewer FLOPs (3 gates, not 4) but not proportionally less time: the
  // launches cost host time per iteration.
  EXPECT_LT(gru.info.kernel().flops(), lstm.info.kernel().flops());
  EXPECT_GT(gru.mean_compute_s / lstm.mean_compute_s,
            gru.info.kernel().flops() / lstm.info.kernel().flops());
}

}  // namespace
}  // namespace powersweep
