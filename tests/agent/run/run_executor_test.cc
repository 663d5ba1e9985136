#include "agent/run/run_executor.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "agent/platform/fake_platform.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/recording_sink.h"
#include "agent/trace/kernel_tracer.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "tests/common/test_dir.h"

namespace powersweep {
namespace {

v1::RunSpec Spec(int64_t minibatches) {
  v1::RunSpec spec;
  spec.set_run_id(11);
  spec.set_attempt(1);
  auto* w = spec.mutable_workload();
  w->set_model("lenet5");
  w->set_dataset("fashion-mnist");
  w->set_task(v1::TASK_TRAIN);
  w->set_batch_size(32);
  w->set_loader_workers(2);
  w->set_minibatches(minibatches);
  w->set_seed(7);
  spec.mutable_power_mode()->set_cpu_cores(1);
  spec.set_timeout_s(60);
  return spec;
}

class RunExecutorTest : public testing::Test {
 protected:
  RunExecutorTest() {
    catalog_.datasets = {{"fashion-mnist", "/data/fm"}};
    config_.workload_bin = FAKE_WORKLOAD;
    config_.work_dir = MakeTestDir("run_executor_test");
    config_.batch_interval_s = 1000;  // cut by record count only
    config_.max_records_per_batch = 4;
    config_.cancel_grace_s = 0.2;
    unsetenv("FAKE_WORKLOAD_FLAGS");
  }
  ~RunExecutorTest() override { unsetenv("FAKE_WORKLOAD_FLAGS"); }
  RunExecutor Make() {
    return RunExecutor(config_, &catalog_, &platform_, &clock_,
                       [this] { return std::make_unique<NativeRuntime>(&clock_); });
  }

  RealClock clock_;
  Catalog catalog_;
  FakePlatform platform_{{0, 1}};
  RunExecutorConfig config_;
  RecordingSink sink_;
};

TEST(WorkloadArgv, BuiltFromValidatedFieldsOnly) {
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", "/data/fm"}};
  v1::RunSpec spec = Spec(100);
  spec.mutable_workload()->set_duration_s(2.5);
  auto argv = BuildWorkloadArgv("/opt/ps/powersweep-workload", catalog, spec, 3);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(*argv, (std::vector<std::string>{
                       "/opt/ps/powersweep-workload", "run", "--model",
                       "lenet5", "--dataset-path", "/data/fm", "--task",
                       "train", "--batch-size", "32", "--workers", "2",
                       "--minibatches", "100", "--duration-s", "2.5",
                       "--seed", "7", "--threads", "3", "--records-fd",
                       "3"}));
}

TEST(WorkloadArgv, PipelineKnobsBecomeFlagsOnlyWhenSet) {
  Catalog catalog;
  catalog.datasets = {{"imagenet", "/data/imagenet-val"}};
  v1::RunSpec spec = Spec(100);
  v1::WorkloadSpec* w = spec.mutable_workload();
  w->set_model("resnet50");
  w->set_dataset("imagenet");
  w->set_task(v1::TASK_INFER);
  w->set_prefetch_depth(8);
  w->set_page_cache(v1::PAGE_CACHE_DROP);
  w->set_preload(true);
  w->set_input_size(160);
  auto argv = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(*argv, (std::vector<std::string>{
                       "w", "run", "--model", "resnet50", "--dataset-path",
                       "/data/imagenet-val", "--task", "infer",
                       "--batch-size", "32", "--workers", "2",
                       "--minibatches", "100", "--prefetch-depth", "8",
                       "--page-cache", "drop", "--preload", "--input-size",
                       "160", "--seed", "7", "--threads", "2",
                       "--records-fd", "3"}));
  w->set_prefetch_depth(-1);
  auto bad = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.prefetch_depth"),
            std::string::npos);
}

TEST(WorkloadArgv, CudaTimingKnobsBecomeFlagsOfModelRunsOnly) {
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", "/data/fm"}};
  v1::RunSpec spec = Spec(100);
  spec.mutable_workload()->set_warmup_minibatches(5);
  spec.mutable_workload()->set_cudnn_benchmark(true);
  auto argv = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(*argv, (std::vector<std::string>{
                       "w", "run", "--model", "lenet5", "--dataset-path",
                       "/data/fm", "--task", "train", "--batch-size", "32",
                       "--workers", "2", "--minibatches", "100",
                       "--warmup-minibatches", "5", "--cudnn-benchmark",
                       "--seed", "7", "--threads", "2", "--records-fd",
                       "3"}));
  spec.mutable_workload()->set_model("gemm");
  spec.mutable_workload()->set_dataset("deepbench-train-1");
  spec.mutable_workload()->set_cudnn_benchmark(false);
  auto kernel = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("workload.warmup_minibatches"),
            std::string::npos)
      << kernel.status();
}

TEST(WorkloadArgv, SequenceOptionsBecomeFlagsOnlyWhenSet) {
  Catalog catalog;
  catalog.datasets = {{"wordnet", "/data/wordnet"}};
  v1::RunSpec spec = Spec(100);
  v1::WorkloadSpec* w = spec.mutable_workload();
  w->set_model("mobilebert");
  w->set_dataset("wordnet");
  w->set_seq_len(64);
  w->set_vocab(40000);
  auto argv = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(*argv, (std::vector<std::string>{
                       "w", "run", "--model", "mobilebert", "--dataset-path",
                       "/data/wordnet", "--task", "train", "--batch-size",
                       "32", "--workers", "2", "--minibatches", "100",
                       "--seq-len", "64", "--vocab", "40000", "--seed", "7",
                       "--threads", "2", "--records-fd", "3"}));
  w->set_seq_len(-3);
  auto bad = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.seq_len"), std::string::npos);
}

TEST(WorkloadArgv, AKernelGetsItsShapeAndNoDatasetOrLoaderFlags) {
  Catalog catalog;  // no data set of that name: a kernel needs none
  catalog.datasets = {{"fashion-mnist", "/data/fm"}};
  v1::RunSpec spec = Spec(100);
  v1::WorkloadSpec* w = spec.mutable_workload();
  w->set_model("rnn");
  w->set_dataset("gru-h512-b32-t25-fwdbwd");
  w->set_page_cache(v1::PAGE_CACHE_DROP);
  w->set_prefetch_depth(4);
  auto argv = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_TRUE(argv.ok()) << argv.status();
  EXPECT_EQ(*argv, (std::vector<std::string>{
                       "w", "run", "--model", "rnn", "--kernel-shape",
                       "gru-h512-b32-t25-fwdbwd", "--task", "train",
                       "--minibatches", "100", "--seed", "7", "--threads",
                       "2", "--records-fd", "3"}));
  w->set_dataset("gru-h512");
  auto bad = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "workload.dataset: rnn shape 'gru-h512': missing field b<batch>");
  w->set_dataset("deepbench-train-1");
  w->set_epochs(1);
  bad = BuildWorkloadArgv("w", catalog, spec, 2);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.epochs"), std::string::npos);
}

TEST(WorkloadArgv, RejectsWhatTheCatalogDoesNotHave) {
  Catalog catalog;
  catalog.datasets = {{"fashion-mnist", "/data/fm"}};
  v1::RunSpec spec = Spec(1);
  spec.mutable_workload()->set_model("resnet50; rm -rf /");
  auto a = BuildWorkloadArgv("w", catalog, spec, 1);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("workload.model"), std::string::npos);
  spec = Spec(1);
  spec.mutable_workload()->set_dataset("imagenet");  // not on this agent
  auto b = BuildWorkloadArgv("w", catalog, spec, 1);
  EXPECT_NE(b.status().message().find("workload.dataset"), std::string::npos);
  spec = Spec(0);
  auto c = BuildWorkloadArgv("w", catalog, spec, 1);
  EXPECT_NE(c.status().message().find("stop condition"), std::string::npos);
}

TEST_F(RunExecutorTest, SuccessfulRunSendsStartedNumberedBatchesAndResult) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(10);
  spec.set_attempt(2);  // a retry: its data must say so
  v1::RunFinished f = ex.Execute(spec, &sink_);
  EXPECT_TRUE(f.result().ok()) << f.result().reason();
  EXPECT_EQ(f.result().run_id(), 11);
  EXPECT_EQ(f.attempt(), 2);
  EXPECT_EQ(f.result().provenance().framework(), "fake");
  EXPECT_EQ(f.result().applied_mode().actual().cpu_cores(), 1);
  EXPECT_EQ(f.result().energy_provenance(), v1::PROVENANCE_UNSPECIFIED);
  ASSERT_EQ(sink_.started().size(), 1u);
  ASSERT_EQ(sink_.finished().size(), 1u);
  // 10 records in batches of 4: 4, 4, 2.
  const std::vector<v1::DataBatch> batches = sink_.batches();
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(f.batches(), 3);
  int64_t next_index = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    EXPECT_EQ(batches[i].seq(), static_cast<int64_t>(i + 1));
    EXPECT_EQ(batches[i].attempt(), 2) << "batch " << i + 1;
    for (const auto& m : batches[i].minibatches()) {
      EXPECT_EQ(m.index(), next_index++);
    }
  }
  EXPECT_EQ(next_index, 10);
  EXPECT_EQ(platform_.applies(), 1);
  EXPECT_EQ(platform_.restores(), 1);
}

// Another process that keeps a core busy while the workload runs (the
// workload itself sleeps): the result records about a core of other use
// (RunResult.other_cpu_cores; `runs` flags the host as busy). The machine
// may be busier still (other jobs), never idler.
TEST_F(RunExecutorTest, ANativeRunRecordsTheCpuOtherProcessesUsed) {
  setenv("FAKE_WORKLOAD_FLAGS", "--sleep-s 1.5", 1);
  const pid_t spinner = fork();
  ASSERT_GE(spinner, 0);
  if (spinner == 0) {
    volatile uint64_t n = 0;
    for (;;) n = n + 1;  // until killed
  }
  RunExecutor ex = Make();
  v1::RunFinished f = ex.Execute(Spec(3), &sink_);
  kill(spinner, SIGKILL);
  waitpid(spinner, nullptr, 0);
  ASSERT_TRUE(f.result().ok()) << f.result().reason();
  ASSERT_TRUE(f.result().has_other_cpu_cores());
  EXPECT_GT(f.result().other_cpu_cores(), 0.5);
  // The workload's own CPU time: the sleeping fake's, not the spinner's.
  EXPECT_GT(f.result().workload_cpu_s(), 0);
  EXPECT_LT(f.result().workload_cpu_s(), 0.5);
}

TEST_F(RunExecutorTest, UnknownModelFailsBeforeStartingAnything) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.mutable_workload()->set_model("vgg16");
  spec.set_attempt(3);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.attempt(), 3);
  EXPECT_NE(f.result().reason().find("workload.model"), std::string::npos);
  EXPECT_TRUE(sink_.started().empty());
  EXPECT_EQ(sink_.finished().size(), 1u);
  EXPECT_EQ(platform_.applies(), 0);
}

TEST_F(RunExecutorTest, OutOfBoundsSpecFailsBeforeStartingAnything) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.set_tenants(2147483647);
  spec.set_timeout_s(1e308);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.batches(), 0);
  EXPECT_NE(f.result().reason().find("tenants: 2147483647"), std::string::npos)
      << f.result().reason();
  EXPECT_NE(f.result().reason().find("timeout_s"), std::string::npos);
  EXPECT_EQ(ex.ActiveRunId(), 0);
  EXPECT_TRUE(sink_.started().empty());
  EXPECT_EQ(sink_.finished().size(), 1u);
  EXPECT_EQ(platform_.applies(), 0);
}

TEST_F(RunExecutorTest, RejectedPowerModeFailsWithThePlatformReason) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.mutable_power_mode()->set_cpu_freq_khz(1000);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_NE(f.result().reason().find("cpu_freq_khz"), std::string::npos);
}

TEST_F(RunExecutorTest, ExitZeroWithoutFinishedRecordIsAFailure) {
  setenv("FAKE_WORKLOAD_FLAGS", "--no-finished", 1);
  RunExecutor ex = Make();
  v1::RunFinished f = ex.Execute(Spec(3), &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.result().exit_code(), 0);
  EXPECT_NE(f.result().reason().find("no finished record"), std::string::npos);
}

TEST_F(RunExecutorTest, WorkloadErrorReasonCarriesItsStderr) {
  setenv("FAKE_WORKLOAD_FLAGS", "--exit-code 1 --stderr corrupt-idx-file",
         1);
  RunExecutor ex = Make();
  v1::RunFinished f = ex.Execute(Spec(3), &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.result().reason(),
            "workload exited with code 1: corrupt-idx-file");
  EXPECT_EQ(f.result().exit_code(), 1);
}

TEST_F(RunExecutorTest, CancelEndsTheRunWithTheReason) {
  setenv("FAKE_WORKLOAD_FLAGS", "--sleep-s 30", 1);
  RunExecutor ex = Make();
  v1::RunFinished f;
  std::thread t([&] { f = ex.Execute(Spec(3), &sink_); });
  ASSERT_TRUE(sink_.AwaitStarted(absl::Seconds(10)));
  EXPECT_EQ(ex.ActiveRunId(), 11);
  ex.Cancel(99, "not this run");  // other run id: ignored
  ex.Cancel(11, "sweep cancelled");
  t.join();
  EXPECT_FALSE(f.result().ok());
  EXPECT_EQ(f.result().reason(), "cancelled: sweep cancelled");
  EXPECT_EQ(ex.ActiveRunId(), 0);
}

TEST_F(RunExecutorTest, CoLocatedTenantsEachSendTheirOwnRecords) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.set_tenants(3);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  ASSERT_TRUE(f.result().ok()) << f.result().reason();
  ASSERT_EQ(f.result().tenants_size(), 3);
  double cpu_s = 0;
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(f.result().tenants(t).tenant(), t);
    EXPECT_EQ(f.result().tenants(t).minibatches(), 5);
    EXPECT_EQ(f.result().tenants(t).exit_code(), 0);
    EXPECT_GT(f.result().tenants(t).cpu_s(), 0);
    cpu_s += f.result().tenants(t).cpu_s();
  }
  // The run's workload CPU time is every tenant's (`compare` compares it).
  EXPECT_DOUBLE_EQ(f.result().workload_cpu_s(), cpu_s);
  std::map<int, int> per_tenant;
  for (const auto& m : sink_.Records()) ++per_tenant[m.tenant()];
  EXPECT_EQ(per_tenant, (std::map<int, int>{{0, 5}, {1, 5}, {2, 5}}));
  for (int t = 0; t < 3; ++t) {
    EXPECT_TRUE(std::filesystem::exists(absl::StrCat(
        config_.work_dir, "/run-11-attempt-1-tenant-", t, ".log")));
  }
}

// A run that asks for kernel traces gets them in its result, counted over
// every tenant's process (the kernel tracer needs root, as CI runs).
TEST_F(RunExecutorTest, TracesOfEveryTenantAreInTheResult) {
  ASSERT_EQ(geteuid(), 0) << "kernel tracing needs root (CI runs as root)";
  config_.tracer = std::make_shared<KernelTracer>();
  // The fake workload writes its records at once and would be done in
  // milliseconds, before the tracer attaches (a real one spends a second
  // loading LibTorch): it sleeps after them here. A run that ends before
  // the attach records its traces as missing.
  setenv("FAKE_WORKLOAD_FLAGS", "--sleep-s 1", 1);
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.set_tenants(2);
  spec.add_traces(v1::TRACE_SYSCALLS);
  spec.add_traces(v1::TRACE_SCHED);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  ASSERT_TRUE(f.result().ok()) << f.result().reason();
  const v1::RunTraces& t = f.result().traces();
  EXPECT_EQ(t.requested_size(), 2);
  EXPECT_EQ(t.missing_size(), 0) << t.DebugString();
  int64_t exits = 0;
  int64_t switches = -1;
  for (const v1::TraceCount& c : t.counts()) {
    if (c.kind() == v1::TRACE_SYSCALLS && c.name() == "exit_group") {
      exits = c.count();
    }
    if (c.name() == "context_switches") switches = c.count();
  }
  // Each tenant's process ends (after its sleep, so after the attach)
  // with one exit_group: both tenants were followed.
  EXPECT_EQ(exits, 2);
  EXPECT_GE(switches, 2);  // each sleeps
}

TEST_F(RunExecutorTest, WithoutATracerRequestedTracesAreMissingNotFatal) {
  RunExecutor ex = Make();  // config_.tracer unset
  v1::RunSpec spec = Spec(3);
  spec.add_traces(v1::TRACE_WRITEBACK);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  ASSERT_TRUE(f.result().ok()) << f.result().reason();
  ASSERT_EQ(f.result().traces().missing_size(), 1);
  EXPECT_EQ(f.result().traces().missing(0).reason(),
            "this agent has no kernel tracer");
  // Off unless asked for.
  v1::RunFinished plain = ex.Execute(Spec(3), &sink_);
  EXPECT_FALSE(plain.result().has_traces());
}

// A platform whose applied mode leaves the run no CPU: the workload command
// line built for that mode is refused (not used unchecked), the mode is
// restored and nothing starts.
class NoCpuAfterApplyPlatform : public FakePlatform {
 public:
  NoCpuAfterApplyPlatform() : FakePlatform({0, 1}) {}
  std::vector<int> RunCpus() const override {
    if (applies() > restores()) return {};
    return FakePlatform::RunCpus();
  }
};

TEST_F(RunExecutorTest, AnAppliedModeWithoutCpusFailsTheRunAndRestores) {
  NoCpuAfterApplyPlatform platform;
  RunExecutor ex(config_, &catalog_, &platform, &clock_,
                 [this] { return std::make_unique<NativeRuntime>(&clock_); });
  v1::RunFinished f = ex.Execute(Spec(5), &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_NE(f.result().reason().find("the run has no CPU"), std::string::npos)
      << f.result().reason();
  EXPECT_EQ(platform.applies(), 1);
  EXPECT_EQ(platform.restores(), 1);
  EXPECT_TRUE(sink_.started().empty());
  EXPECT_EQ(sink_.finished().size(), 1u);
}

// The telemetry of a co-located run follows every tenant's process: its
// RSS is their sum, not tenant 0's alone.
TEST_F(RunExecutorTest, CoLocatedTelemetrySumsEveryTenantsProcess) {
  setenv("FAKE_WORKLOAD_FLAGS", "--sleep-s 1", 1);
  auto peak_rss = [this](int tenants) {
    RecordingSink sink;
    RunExecutor ex = Make();
    v1::RunSpec spec = Spec(1);
    spec.set_tenants(tenants);
    spec.set_telemetry_hz(20);
    v1::RunFinished f = ex.Execute(spec, &sink);
    EXPECT_TRUE(f.result().ok()) << f.result().reason();
    int64_t peak = 0;
    for (const auto& s : sink.Samples()) {
      peak = std::max<int64_t>(peak, s.proc_rss_bytes());
    }
    return peak;
  };
  const int64_t one = peak_rss(1);
  const int64_t three = peak_rss(3);
  ASSERT_GT(one, 0);
  EXPECT_GT(three, 2 * one) << "one tenant " << one << ", three " << three;
}

TEST_F(RunExecutorTest, ContainerRunOnAnAgentWithoutAnEngineFailsClearly) {
  RunExecutor ex = Make();
  v1::RunSpec spec = Spec(5);
  spec.set_runtime(v1::RUNTIME_CONTAINER);
  v1::RunFinished f = ex.Execute(spec, &sink_);
  EXPECT_FALSE(f.result().ok());
  EXPECT_NE(f.result().reason().find("runtime: container runs are not "
                                     "available on this agent (no container "
                                     "engine"),
            std::string::npos)
      << f.result().reason();
  EXPECT_TRUE(sink_.started().empty());
}

}  // namespace
}  // namespace powersweep
