#include "controller/sweep/expand.h"

#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "controller/sweep/validate.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

v1::SweepSpec TwoOfEach() {
  v1::SweepSpec s;
  s.set_name("grid");
  s.add_device_classes("orin-agx");
  s.add_models("lenet5");
  s.add_datasets("fashion-mnist");
  s.add_tasks(v1::TASK_TRAIN);
  s.add_tasks(v1::TASK_INFER);
  s.add_batch_sizes(64);
  s.add_loader_workers(0);
  s.add_loader_workers(2);
  s.add_power_modes()->set_preset("MAXN");
  s.add_power_modes()->set_preset("MODE_15W");
  s.set_repetitions(2);
  s.set_epochs(3);
  s.set_minibatches(100);
  s.set_duration_s(45.5);
  s.set_seed(42);
  s.set_threads(4);
  s.set_telemetry_hz(25);
  s.set_timeout_s(120);
  return WithDefaults(s);
}

TEST(ExpandSweepTest, TwoOfEachAxisTimesTwoRepetitionsIsSixteenRuns) {
  const v1::SweepSpec spec = TwoOfEach();
  const std::vector<v1::RunSpec> runs = ExpandSweep(spec);
  ASSERT_EQ(runs.size(), 16u);
  EXPECT_EQ(CountRuns(spec), 16);
}

TEST(ExpandSweepTest, RepetitionIsOutermostAndRuntimeFastest) {
  const std::vector<v1::RunSpec> runs = ExpandSweep(TwoOfEach());
  ASSERT_EQ(runs.size(), 16u);
  // (repetition, task, workers, preset) in the order the runs are queued.
  std::vector<std::tuple<int, int, int, std::string>> got;
  for (const v1::RunSpec& r : runs) {
    got.emplace_back(r.repetition(), r.workload().task(),
                     r.workload().loader_workers(), r.power_mode().preset());
  }
  std::vector<std::tuple<int, int, int, std::string>> want;
  for (int rep : {0, 1}) {
    for (int task : {v1::TASK_TRAIN, v1::TASK_INFER}) {
      for (int workers : {0, 2}) {
        for (const char* preset : {"MAXN", "MODE_15W"}) {
          want.emplace_back(rep, task, workers, preset);
        }
      }
    }
  }
  EXPECT_EQ(got, want);
  // All cells of repetition 0 come before any of repetition 1.
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(runs[i].repetition(), 0);
  for (size_t i = 8; i < 16; ++i) EXPECT_EQ(runs[i].repetition(), 1);
}

TEST(ExpandSweepTest, EveryRunCarriesTheSweepWideFields) {
  for (const v1::RunSpec& r : ExpandSweep(TwoOfEach())) {
    EXPECT_EQ(r.run_id(), 0);
    EXPECT_EQ(r.sweep_id(), 0);
    EXPECT_EQ(r.device_class(), "orin-agx");
    EXPECT_EQ(r.workload().model(), "lenet5");
    EXPECT_EQ(r.workload().dataset(), "fashion-mnist");
    EXPECT_EQ(r.workload().batch_size(), 64);
    EXPECT_EQ(r.workload().epochs(), 3);
    EXPECT_EQ(r.workload().minibatches(), 100);
    EXPECT_DOUBLE_EQ(r.workload().duration_s(), 45.5);
    EXPECT_EQ(r.workload().seed(), 42u);
    EXPECT_EQ(r.workload().threads(), 4);
    EXPECT_EQ(r.runtime(), v1::RUNTIME_NATIVE);
    EXPECT_DOUBLE_EQ(r.telemetry_hz(), 25);
    EXPECT_DOUBLE_EQ(r.timeout_s(), 120);
    EXPECT_EQ(r.attempt(), 1);
  }
}

TEST(ExpandSweepTest, CudaTimingKnobsReachModelRunsButNotKernels) {
  v1::SweepSpec s = TwoOfEach();
  s.add_models("gemm");
  s.add_datasets("deepbench-train-1");
  s.set_warmup_minibatches(4);
  s.set_cudnn_benchmark(true);
  int models = 0, kernels = 0;
  for (const v1::RunSpec& r : ExpandSweep(s)) {
    if (r.workload().model() == "gemm") {
      ++kernels;
      EXPECT_EQ(r.workload().warmup_minibatches(), 0);
      EXPECT_FALSE(r.workload().cudnn_benchmark());
    } else {
      ++models;
      EXPECT_EQ(r.workload().warmup_minibatches(), 4);
      EXPECT_TRUE(r.workload().cudnn_benchmark());
    }
  }
  EXPECT_GT(models, 0);
  EXPECT_GT(kernels, 0);
}

TEST(ExpandSweepTest, TracesReachEveryRunBaseloadsToo) {
  v1::SweepSpec s = TwoOfEach();
  s.add_tasks(v1::TASK_BASELOAD);
  s.add_traces(v1::TRACE_WRITEBACK);
  s.add_traces(v1::TRACE_SYSCALLS);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_FALSE(runs.empty());
  bool baseload = false;
  for (const v1::RunSpec& r : runs) {
    baseload |= r.workload().task() == v1::TASK_BASELOAD;
    EXPECT_THAT(r.traces(), ::testing::ElementsAre(v1::TRACE_WRITEBACK,
                                                   v1::TRACE_SYSCALLS));
  }
  EXPECT_TRUE(baseload);
  // Off unless asked for.
  for (const v1::RunSpec& r : ExpandSweep(TwoOfEach())) {
    EXPECT_EQ(r.traces_size(), 0);
  }
}

TEST(ExpandSweepTest, PowerModeKnobsAreCopiedWhole) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_power_modes();
  v1::PowerMode* m = s.add_power_modes();
  m->set_cpu_cores(4);
  m->set_cpu_freq_khz(1728000);
  m->set_gpu_freq_hz(612000000);
  m->set_mem_freq_hz(2133000000);
  for (const v1::RunSpec& r : ExpandSweep(s)) {
    EXPECT_EQ(r.power_mode().cpu_cores(), 4);
    EXPECT_EQ(r.power_mode().cpu_freq_khz(), 1728000);
    EXPECT_EQ(r.power_mode().gpu_freq_hz(), 612000000);
    EXPECT_EQ(r.power_mode().mem_freq_hz(), 2133000000);
  }
}

TEST(ExpandSweepTest, TenantsAndContainerImageReachEveryWorkloadRun) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_tenants();
  s.add_tenants(1);
  s.add_tenants(4);
  s.add_runtimes(v1::RUNTIME_CONTAINER);
  s = WithDefaults(s);
  EXPECT_EQ(s.container_image(), "powersweep-workload:local");
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_EQ(runs.size(), 64u);  // 16 x 2 tenants x 2 runtimes
  EXPECT_EQ(CountRuns(s), 64);
  int four = 0, containers = 0;
  for (const v1::RunSpec& r : runs) {
    four += r.tenants() == 4;
    if (r.runtime() == v1::RUNTIME_CONTAINER) {
      ++containers;
      EXPECT_EQ(r.container_image(), "powersweep-workload:local");
    } else {
      EXPECT_EQ(r.container_image(), "");
    }
  }
  EXPECT_EQ(four, 32);
  EXPECT_EQ(containers, 32);
}

TEST(ExpandSweepTest, AnEmptyAxisMeansNoRuns) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_models();
  EXPECT_EQ(CountRuns(s), 0);
  EXPECT_TRUE(ExpandSweep(s).empty());
}

TEST(CountRunsTest, SaturatesInsteadOfOverflowing) {
  v1::SweepSpec s = TwoOfEach();
  s.set_repetitions(std::numeric_limits<int32_t>::max());
  for (int i = 0; i < 2000; ++i) s.add_batch_sizes(i + 100);
  for (int i = 0; i < 2000; ++i) s.add_device_classes("x");
  for (int i = 0; i < 2000; ++i) s.add_models("m");
  EXPECT_EQ(CountRuns(s), std::numeric_limits<int64_t>::max());
}

TEST(ExpandSweepTest, BaseloadCellsComeFirstWithoutWorkloadAxes) {
  v1::SweepSpec s = TwoOfEach();  // 2 modes, 2 repetitions, 8 workload cells
  s.add_tasks(v1::TASK_BASELOAD);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  // Per repetition: 2 baseload runs (one per mode) + 8 workload runs.
  ASSERT_EQ(runs.size(), 20u);
  EXPECT_EQ(CountRuns(s), 20);
  for (int rep = 0; rep < 2; ++rep) {
    for (int i = 0; i < 2; ++i) {
      const v1::RunSpec& b = runs[rep * 10 + i];
      EXPECT_EQ(b.workload().task(), v1::TASK_BASELOAD);
      EXPECT_EQ(b.repetition(), rep);
      EXPECT_EQ(b.workload().model(), "");
      EXPECT_EQ(b.workload().batch_size(), 0);
      EXPECT_EQ(b.workload().duration_s(), 45.5);
      EXPECT_EQ(b.workload().minibatches(), 0);
      EXPECT_EQ(b.power_mode().preset(), i == 0 ? "MAXN" : "MODE_15W");
      EXPECT_EQ(b.attempt(), 1);
    }
    for (int i = 2; i < 10; ++i) {
      EXPECT_NE(runs[rep * 10 + i].workload().task(), v1::TASK_BASELOAD);
    }
  }
}

TEST(ExpandSweepTest, BaseloadOnlySweepNeedsNoModels) {
  v1::SweepSpec s;
  s.set_name("idle");
  s.add_device_classes("orin-agx");
  s.add_device_classes("nano");
  s.add_tasks(v1::TASK_BASELOAD);
  s.set_duration_s(60);
  s = WithDefaults(s);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(CountRuns(s), 2);
  EXPECT_EQ(runs[0].device_class(), "orin-agx");
  EXPECT_EQ(runs[1].device_class(), "nano");
  EXPECT_EQ(runs[1].runtime(), v1::RUNTIME_NATIVE);
}

TEST(ExpandSweepTest, WorkloadPairsReplaceTheModelDatasetProduct) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("lenet5/mnist");
  s.add_workloads("resnet18/cifar10:train");
  s.add_workloads("resnet50/imagenet:infer");
  // lenet5: 2 tasks; resnet18 train only; resnet50 infer only = 4 workload
  // tasks x 2 workers x 2 modes x 2 repetitions.
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_EQ(runs.size(), 32u);
  EXPECT_EQ(CountRuns(s), 32);
  std::set<std::tuple<std::string, std::string, int>> seen;
  for (const v1::RunSpec& r : runs) {
    seen.emplace(r.workload().model(), r.workload().dataset(),
                 r.workload().task());
  }
  EXPECT_THAT(seen, ::testing::ElementsAre(
                        std::make_tuple("lenet5", "mnist", v1::TASK_TRAIN),
                        std::make_tuple("lenet5", "mnist", v1::TASK_INFER),
                        std::make_tuple("resnet18", "cifar10", v1::TASK_TRAIN),
                        std::make_tuple("resnet50", "imagenet",
                                        v1::TASK_INFER)));
}

// A suffixed entry runs its task even when `tasks` lacks it; unsuffixed
// entries run the tasks of `tasks`.
TEST(ExpandSweepTest, SuffixesImplyTheirTaskWhateverTasksSays) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_models();
  s.clear_datasets();
  s.clear_tasks();
  s.add_tasks(v1::TASK_TRAIN);
  s.add_workloads("lenet5/mnist");
  s.add_workloads("resnet50/imagenet:infer");
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  EXPECT_EQ(static_cast<int64_t>(runs.size()), CountRuns(s));
  std::set<std::tuple<std::string, int>> seen;
  for (const v1::RunSpec& r : runs) {
    seen.emplace(r.workload().model(), r.workload().task());
  }
  EXPECT_THAT(seen, ::testing::ElementsAre(
                        std::make_tuple("lenet5", v1::TASK_TRAIN),
                        std::make_tuple("resnet50", v1::TASK_INFER)));
}

// Power modes per class: each class runs the modes that apply to it.
TEST(ExpandSweepTest, EachClassRunsItsOwnPowerModes) {
  v1::SweepSpec s = TwoOfEach();  // MAXN, MODE_15W
  s.add_device_classes("xavier-nx");
  s.add_power_modes()->set_preset("MODE_10W_2CORE");
  s.add_power_mode_classes();  // MAXN: every class
  s.add_power_mode_classes()->add_device_classes("orin-agx");
  s.add_power_mode_classes()->add_device_classes("xavier-nx");
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  EXPECT_EQ(static_cast<int64_t>(runs.size()), CountRuns(s));
  std::set<std::tuple<std::string, std::string>> seen;
  for (const v1::RunSpec& r : runs) {
    seen.emplace(r.device_class(), r.power_mode().preset());
  }
  EXPECT_THAT(seen, ::testing::ElementsAre(
                        std::make_tuple("orin-agx", "MAXN"),
                        std::make_tuple("orin-agx", "MODE_15W"),
                        std::make_tuple("xavier-nx", "MAXN"),
                        std::make_tuple("xavier-nx", "MODE_10W_2CORE")));
  // 2 classes x 2 modes x 2 tasks x 2 workers x 2 repetitions.
  EXPECT_EQ(runs.size(), 32u);
}

TEST(ExpandSweepTest, SeqLenAndVocabReachOnlyTheSequenceModelsRuns) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("mobilebert/wikitext");
  s.add_workloads("resnet18/cifar10");
  s.add_workloads("gpt2_small/synthetic");
  s.set_seq_len(64);
  s.set_vocab(30522);
  s.set_input_size(160);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_FALSE(runs.empty());
  int gpt2 = 0;
  for (const v1::RunSpec& r : runs) {
    const bool bert = r.workload().model() == "mobilebert";
    const bool image = r.workload().model() == "resnet18";
    gpt2 += r.workload().model() == "gpt2_small";
    EXPECT_EQ(r.workload().seq_len(), bert ? 64 : 0);
    EXPECT_EQ(r.workload().vocab(), bert ? 30522 : 0);
    // gpt2_small (its own defaults) takes none of them.
    EXPECT_EQ(r.workload().input_size(), image ? 160 : 0);
  }
  EXPECT_GT(gpt2, 0);
}

// deepspeech2's seq_len is its window of spectrogram frames; input_size
// (an image side) never reaches it, nor vocab.
TEST(ExpandSweepTest, SeqLenIsDeepSpeech2sFrames) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("deepspeech2/espeak-words");
  s.add_workloads("resnet18/cifar10");
  s.set_seq_len(400);
  s.set_input_size(160);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  int speech = 0;
  for (const v1::RunSpec& r : runs) {
    const bool ds2 = r.workload().model() == "deepspeech2";
    speech += ds2;
    EXPECT_EQ(r.workload().seq_len(), ds2 ? 400 : 0);
    EXPECT_EQ(r.workload().vocab(), 0);
    EXPECT_EQ(r.workload().input_size(), ds2 ? 0 : 160);
  }
  EXPECT_GT(speech, 0);
}

TEST(ExpandSweepTest, PipelineAxesMultiplyAndPreloadIsForInferOnly) {
  v1::SweepSpec s = TwoOfEach();
  s.clear_prefetch_depths();
  s.add_prefetch_depths(2);
  s.add_prefetch_depths(8);
  s.clear_page_cache();
  s.add_page_cache(v1::PAGE_CACHE_KEEP);
  s.add_page_cache(v1::PAGE_CACHE_DROP);
  s.set_preload(true);
  s.set_input_size(160);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  ASSERT_EQ(runs.size(), 64u);
  EXPECT_EQ(CountRuns(s), 64);
  int drops = 0, deep = 0;
  for (const v1::RunSpec& r : runs) {
    const v1::WorkloadSpec& w = r.workload();
    EXPECT_EQ(w.preload(), w.task() == v1::TASK_INFER);
    EXPECT_EQ(w.input_size(), 160);
    drops += w.page_cache() == v1::PAGE_CACHE_DROP;
    deep += w.prefetch_depth() == 8;
  }
  EXPECT_EQ(drops, 32);
  EXPECT_EQ(deep, 32);
}

TEST(ExpandSweepTest, DefaultsKeepThePageCacheAndTheLoadersDepth) {
  for (const v1::RunSpec& r : ExpandSweep(TwoOfEach())) {
    EXPECT_EQ(r.workload().page_cache(), v1::PAGE_CACHE_KEEP);
    EXPECT_EQ(r.workload().prefetch_depth(), 0);
    EXPECT_FALSE(r.workload().preload());
  }
}

}  // namespace
}  // namespace powersweep
