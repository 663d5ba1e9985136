#include "controller/sweep/validate.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/sweep/validate_test_util.h"

namespace powersweep {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing_util::Ctx;
using testing_util::Device;
using testing_util::GoodSpec;
using testing_util::Problems;

TEST(WithDefaultsTest, FillsEveryDefault) {
  v1::SweepSpec s = WithDefaults(v1::SweepSpec());
  EXPECT_EQ(s.repetitions(), 1);
  EXPECT_DOUBLE_EQ(s.telemetry_hz(), 10);
  EXPECT_DOUBLE_EQ(s.timeout_s(), 600);
  EXPECT_EQ(s.seed(), 1u);
  EXPECT_THAT(s.runtimes(), ElementsAre(v1::RUNTIME_NATIVE));
  EXPECT_THAT(s.tasks(), ElementsAre(v1::TASK_TRAIN));
  EXPECT_THAT(s.loader_workers(), ElementsAre(0));
  ASSERT_EQ(s.power_modes_size(), 1);
  EXPECT_EQ(s.power_modes(0).ByteSizeLong(), 0u);  // {} = leave as is
  EXPECT_EQ(s.max_retries(), 0);
}

TEST(WithDefaultsTest, KeepsWhatTheUserSet) {
  v1::SweepSpec in;
  in.set_repetitions(3);
  in.set_telemetry_hz(50);
  in.set_timeout_s(30);
  in.set_seed(7);
  in.add_tasks(v1::TASK_INFER);
  in.add_runtimes(v1::RUNTIME_CONTAINER);
  in.add_loader_workers(4);
  in.add_power_modes()->set_preset("MAXN");
  v1::SweepSpec s = WithDefaults(in);
  EXPECT_EQ(s.repetitions(), 3);
  EXPECT_DOUBLE_EQ(s.telemetry_hz(), 50);
  EXPECT_DOUBLE_EQ(s.timeout_s(), 30);
  EXPECT_EQ(s.seed(), 7u);
  EXPECT_THAT(s.tasks(), ElementsAre(v1::TASK_INFER));
  EXPECT_THAT(s.runtimes(), ElementsAre(v1::RUNTIME_CONTAINER));
  EXPECT_THAT(s.loader_workers(), ElementsAre(4));
  ASSERT_EQ(s.power_modes_size(), 1);
  EXPECT_EQ(s.power_modes(0).preset(), "MAXN");
}

TEST(ValidateSweepTest, AcceptsAGoodSweepWithoutWarnings) {
  std::vector<std::string> warnings;
  EXPECT_THAT(Problems(GoodSpec(), Ctx(), &warnings), IsEmpty());
  EXPECT_THAT(warnings, IsEmpty());
}

TEST(ValidateSweepTest, UnknownNames) {
  v1::SweepSpec s = GoodSpec();
  s.set_models(0, "resnet9");
  s.add_device_classes("tx2");
  s.set_datasets(0, "cifar100");
  EXPECT_THAT(
      Problems(s),
      ElementsAre("device_classes[1]: unknown device class 'tx2' "
                  "(known: host, nano, orin-agx, orin-nano, orin-nx, thor, xavier-agx, xavier-nx)",
                  "models[0]: unknown model 'resnet9' (known: alexnet, "
                  "deepspeech2, dqn, gpt2_small, inception_v3, lenet5, "
                  "lstm_lm, memnet, mobilebert, mobilenetv3, resnet18, "
                  "resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae, "
                  "vgg11, vgg19)",
                  "datasets[0]: unknown dataset 'cifar100' (known: "
                  "babi, catch-frames, cifar10, espeak-words, "
                  "fashion-mnist, gld23k, "
                  "imagenet, mnist, synthetic, wikitext, wordnet)"));
}

TEST(ValidateSweepTest, TracesMustBeKnownAndListedOnce) {
  v1::SweepSpec s = GoodSpec();
  s.add_traces(v1::TRACE_SYSCALLS);
  s.add_traces(v1::TRACE_WRITEBACK);
  EXPECT_THAT(Problems(s), IsEmpty());
  s.add_traces(v1::TRACE_SYSCALLS);
  s.add_traces(static_cast<v1::Trace>(42));
  EXPECT_THAT(Problems(s),
              ElementsAre("traces[3]: use syscalls, block, writeback, "
                          "page_faults or sched, got 42",
                          "traces[2]: duplicate of traces[0] (syscalls)"));
}

TEST(ValidateSweepTest, EmptyAxesAndName) {
  v1::SweepSpec s = GoodSpec();
  s.clear_name();
  s.clear_device_classes();
  s.clear_models();
  s.clear_datasets();
  s.clear_batch_sizes();
  s.clear_power_modes();
  EXPECT_THAT(
      Problems(s),
      ElementsAre("name: must not be empty",
                  "device_classes: at least one device class is required "
                  "(known: host, nano, orin-agx, orin-nano, orin-nx, thor, xavier-agx, xavier-nx)",
                  "models: at least one model is required (known: alexnet, "
                  "deepspeech2, dqn, gpt2_small, inception_v3, lenet5, "
                  "lstm_lm, memnet, mobilebert, mobilenetv3, resnet18, "
                  "resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae, "
                  "vgg11, vgg19)",
                  "datasets: at least one dataset is required (known: "
                  "babi, catch-frames, cifar10, espeak-words, "
                  "fashion-mnist, gld23k, "
                  "imagenet, mnist, synthetic, wikitext, wordnet)",
                  "batch_sizes: at least one batch size is required",
                  "power_modes: at least one power mode is required ({} "
                  "leaves the device as it is)"));
}

TEST(ValidateSweepTest, ModelMustAcceptDataset) {
  ValidationContext ctx = Ctx();
  ctx.workloads = WorkloadCatalog({ModelInfo{"lenet5", {"fashion-mnist"}},
                                   ModelInfo{"resnet18", {"cifar10"}}},
                                  {"cifar10", "fashion-mnist"});
  v1::SweepSpec s = GoodSpec();
  s.add_models("resnet18");
  EXPECT_THAT(Problems(s, ctx),
              ElementsAre("datasets[0]: model resnet18 cannot use dataset "
                          "fashion-mnist"));
}

TEST(ValidateSweepTest, BuiltInCatalogPairsGreyAndRgbSets) {
  v1::SweepSpec s = GoodSpec();
  s.add_models("resnet18");
  EXPECT_THAT(Problems(s),
              ElementsAre("datasets[0]: model resnet18 cannot use dataset "
                          "fashion-mnist"));
}

TEST(ValidateSweepTest, WorkloadPairsAreCheckedEach) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("lenet5/mnist");
  s.add_workloads("resnet18/cifar10:train");
  s.add_workloads("resnet50/imagenet:infer");
  // The :infer suffix implies its task: no `tasks: [infer]` needed.
  EXPECT_THAT(Problems(s), IsEmpty());
  s.add_workloads("vgg11/mnist");
  s.add_workloads("resnet18");
  s.add_workloads("resnet18/cifar10:eval");
  s.add_workloads("lenet5/mnist");
  EXPECT_THAT(
      Problems(s),
      ElementsAre("workloads[3]: model vgg11 cannot use dataset mnist",
                  "workloads[4]: expected MODEL/DATASET[:TASK], e.g. "
                  "resnet50/imagenet:infer, got 'resnet18'",
                  "workloads[5]: the task after ':' must be train or infer, "
                  "got 'eval'",
                  "workloads[6]: duplicate of workloads[0] (lenet5/mnist)"));
}

TEST(ValidateSweepTest, SyntheticDataFitsEveryModelButHasNoEpochs) {
  v1::SweepSpec s = GoodSpec();  // epochs: 1
  s.clear_models();
  s.clear_datasets();
  for (const char* m : kModelNames) s.add_workloads(std::string(m) + "/synthetic");
  const std::vector<std::string> problems = Problems(s);
  ASSERT_EQ(problems.size(), kModelNames.size());
  EXPECT_EQ(problems[0],
            "workloads[0]: alexnet on synthetic data has no epochs (one random "
            "minibatch is reused): set epochs to 0 and stop with minibatches "
            "or duration_s");
  s.set_epochs(0);
  s.set_minibatches(20);
  EXPECT_THAT(Problems(s), IsEmpty());
  v1::SweepSpec product = GoodSpec();
  product.set_datasets(0, "synthetic");
  product.add_models("resnet50");
  EXPECT_THAT(Problems(product),
              ElementsAre(HasSubstr("datasets[0]: a model on synthetic data "
                                    "has no epochs")));
}

// `workloads: [mobilenetv3/gld23k:infer]` alone is a sweep: the suffix is
// its task, tasks stays empty (no train runs), and an unsuffixed entry
// with only baseload in tasks is the error that names it.
TEST(ValidateSweepTest, SuffixesImplyTheirTasks) {
  v1::SweepSpec in = GoodSpec();
  in.clear_models();
  in.clear_datasets();
  in.clear_tasks();
  in.add_workloads("resnet50/imagenet:infer");
  v1::SweepSpec s = WithDefaults(in);
  EXPECT_THAT(s.tasks(), IsEmpty());
  EXPECT_THAT(Problems(s), IsEmpty());
  in.add_workloads("lenet5/mnist");
  EXPECT_THAT(WithDefaults(in).tasks(), ElementsAre(v1::TASK_TRAIN));
  in.add_tasks(v1::TASK_BASELOAD);
  in.set_duration_s(5);
  EXPECT_THAT(Problems(WithDefaults(in)),
              ElementsAre(HasSubstr("workloads[1]: no task: tasks has no "
                                    "train or infer")));
}

// Mixed fleets: a power_modes entry scoped to its classes is checked
// against those only; a class left without a mode, or a class the sweep
// does not have, is named.
TEST(ValidateSweepTest, PowerModesPerDeviceClass) {
  v1::SweepSpec s = GoodSpec();
  s.add_device_classes("xavier-nx");
  s.clear_power_modes();
  s.add_power_modes()->set_preset("MODE_15W");  // orin-agx only
  s.add_power_modes()->set_preset("MODE_10W_2CORE");  // xavier-nx only
  s.add_power_mode_classes()->add_device_classes("orin-agx");
  s.add_power_mode_classes()->add_device_classes("xavier-nx");
  EXPECT_THAT(Problems(s), IsEmpty());
  s.mutable_power_mode_classes(1)->set_device_classes(0, "nano");
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("power_modes[1].device_class: 'nano' is "
                                    "not one of device_classes"),
                          HasSubstr("device_classes[1]: no power mode applies "
                                    "to xavier-nx")));
}

TEST(ValidateSweepTest, KernelWorkloadsTakeTableRowsAndExplicitShapes) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.set_epochs(0);
  s.set_minibatches(100);
  s.add_workloads("gemm/deepbench-train-1");
  s.add_workloads("conv/deepbench-train-18-bwd-filter");
  s.add_workloads("rnn/gru-h512-b32-t25-fwdbwd");
  EXPECT_THAT(Problems(s), IsEmpty());
  s.add_workloads("gemm/deepbench-train-9999");
  s.add_workloads("conv/n8-c3-h2-w2-k4-r3-s3");
  s.add_workloads("rnn/lstm-h512-b32");
  s.add_workloads("gemm/cifar10");
  const std::vector<std::string> problems = Problems(s);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_THAT(problems[0], StartsWith("workloads[3]: gemm shape "
                                      "'deepbench-train-9999': no such row"));
  EXPECT_EQ(problems[1],
            "workloads[4]: conv shape 'n8-c3-h2-w2-k4-r3-s3': the 3x3 filter "
            "does not fit the 2x2 input with padding 0x0");
  EXPECT_EQ(problems[2],
            "workloads[5]: rnn shape 'lstm-h512-b32': missing field "
            "t<time steps>");
  EXPECT_THAT(problems[3], StartsWith("workloads[6]: gemm shape 'cifar10': "
                                      "unknown field 'cifar'"));
}

TEST(ValidateSweepTest, KernelWorkloadsHaveNoEpochs) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("gemm/m64-n64-k64");
  EXPECT_THAT(Problems(s),
              ElementsAre("workloads[0]: kernel gemm reads no data set, so it "
                          "has no epochs; stop it with minibatches (timed "
                          "iterations) or duration_s"));
}

TEST(ValidateSweepTest, WorkloadsExcludeModelsAndDatasets) {
  v1::SweepSpec s = GoodSpec();
  s.add_workloads("lenet5/mnist");
  EXPECT_THAT(Problems(s),
              ElementsAre("workloads: give either workloads (MODEL/DATASET "
                          "pairs) or models and datasets, not both"));
}

TEST(ValidateSweepTest, AgentDatasetsAreAcceptedForEveryModel) {
  ValidationContext ctx = Ctx();
  v1::DeviceStatus d = Device("orin-1", "orin-agx", 12, {v1::RUNTIME_NATIVE});
  d.mutable_capabilities()->add_datasets("flowers");
  ctx.known_devices.push_back(d);
  v1::SweepSpec s = GoodSpec();
  s.set_datasets(0, "flowers");
  s.add_models("resnet50");
  EXPECT_THAT(Problems(s, ctx), IsEmpty());
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("datasets[0]: unknown dataset 'flowers'")));
}

TEST(ValidateSweepTest, PipelineKnobs) {
  v1::SweepSpec s = GoodSpec();
  s.clear_prefetch_depths();  // WithDefaults put [0] and [keep] there
  s.clear_page_cache();
  s.add_prefetch_depths(-1);
  s.add_prefetch_depths(4);
  s.add_prefetch_depths(4);
  s.add_page_cache(v1::PAGE_CACHE_UNSPECIFIED);
  s.set_input_size(16);
  s.set_preload(true);
  EXPECT_THAT(
      Problems(s),
      ElementsAre("prefetch_depths[0]: must be between 0 (two per loader "
                  "worker) and 1024, got -1",
                  "prefetch_depths[2]: duplicate of prefetch_depths[1] (4)",
                  "page_cache[0]: use keep or drop, got 0",
                  "preload: applies to infer runs only, and tasks has no "
                  "infer",
                  "input_size: must be 0 (the model's default) or between 32 "
                  "and 1024, got 16"));
}

// A size the network cannot take failed every run of that model when it
// started; now the sweep is rejected at submit, naming the model and the
// smallest size it takes.
TEST(ValidateSweepTest, InputSizeMustFitEveryImageModel) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.clear_tasks();
  s.add_tasks(v1::TASK_TRAIN);
  s.add_workloads("alexnet/imagenet");
  s.add_workloads("inception_v3/imagenet:infer");
  s.add_workloads("resnet50/imagenet");
  s.add_workloads("lenet5/fashion-mnist");
  s.set_input_size(48);
  EXPECT_THAT(
      Problems(s),
      ElementsAre("input_size: 48 is too small for alexnet (at least 63; 0 "
                  "means the default of 224)",
                  "input_size: 48 is too small for inception_v3 (at least "
                  "75; 0 means the default of 299)",
                  "input_size: lenet5 takes 28x28 images only, got 48"));
  // Inception-v3 infers from 75 up; training needs its auxiliary
  // classifier's 299.
  s.clear_workloads();
  s.add_workloads("inception_v3/imagenet:infer");
  s.set_input_size(160);
  EXPECT_THAT(Problems(s), IsEmpty());
  s.add_workloads("inception_v3/imagenet:train");
  EXPECT_THAT(Problems(s),
              ElementsAre("input_size: 160 is too small to train "
                          "inception_v3 (its auxiliary classifier needs at "
                          "least 299; inference takes 75 and up)"));
  // Only sequence models: input_size reaches none of them.
  s.clear_workloads();
  s.add_workloads("mobilebert/wikitext");
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("input_size: applies to the image "
                                    "models and the sweep runs none")));
}

TEST(ValidateSweepTest, SequenceLengthAndVocabularyMustFitTheTextModels) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("mobilebert/wikitext");
  s.add_workloads("lstm_lm/wordnet");
  s.set_seq_len(600);
  s.set_vocab(3);
  EXPECT_THAT(Problems(s),
              ElementsAre("seq_len: 600 does not fit mobilebert (1 to 512 "
                          "tokens; 0 for its default of 128)",
                          "vocab: 3 does not fit: a vocabulary is 4 to "
                          "16777216 tokens (the 4 special tokens; ids exact "
                          "in a float), or 0 for the data set's"));
  s.set_seq_len(512);
  s.set_vocab(16777216);
  EXPECT_THAT(Problems(s), IsEmpty());
  s.set_seq_len(-1);
  s.set_vocab(0);
  EXPECT_THAT(Problems(s), ElementsAre(HasSubstr("seq_len: -1 does not fit "
                                                 "mobilebert"),
                                       HasSubstr("seq_len: -1 does not fit "
                                                 "lstm_lm")));
  // Only sequence models take them.
  v1::SweepSpec images = GoodSpec();
  images.set_seq_len(35);
  EXPECT_THAT(Problems(images),
              ElementsAre("seq_len: applies to the sequence models (lstm_lm, "
                          "memnet, mobilebert, seq2seq, seq2seq_lstm) and "
                          "deepspeech2 "
                          "(spectrogram frames) and the sweep runs none"));
  // memnet's seq_len is words per sentence, at most 64; seq2seq's and
  // seq2seq_lstm's 1024.
  v1::SweepSpec fathom = GoodSpec();
  fathom.clear_models();
  fathom.clear_datasets();
  fathom.add_workloads("memnet/babi");
  fathom.add_workloads("seq2seq/wikitext");
  fathom.add_workloads("seq2seq_lstm/wikitext");
  fathom.set_seq_len(65);
  EXPECT_THAT(Problems(fathom),
              ElementsAre("seq_len: 65 does not fit memnet (1 to 64 tokens; "
                          "0 for its default of 8)"));
  fathom.set_seq_len(1025);
  EXPECT_THAT(Problems(fathom),
              ElementsAre(HasSubstr("seq_len: 1025 does not fit memnet"),
                          HasSubstr("seq_len: 1025 does not fit seq2seq (1 "
                                    "to 1024 tokens"),
                          HasSubstr("seq_len: 1025 does not fit seq2seq_lstm "
                                    "(1 to 1024 tokens")));
  fathom.set_seq_len(64);
  EXPECT_THAT(Problems(fathom), IsEmpty());
}

TEST(ValidateSweepTest, IntegerAxes) {
  v1::SweepSpec s = GoodSpec();
  s.clear_batch_sizes();
  s.add_batch_sizes(0);
  s.add_batch_sizes(-4);
  s.add_batch_sizes(100000);
  s.add_batch_sizes(16);
  s.add_batch_sizes(16);
  s.clear_loader_workers();
  s.add_loader_workers(-1);
  s.add_loader_workers(65);
  s.add_loader_workers(64);
  EXPECT_THAT(
      Problems(s),
      ElementsAre("batch_sizes[0]: must be positive, got 0",
                  "batch_sizes[1]: must be positive, got -4",
                  "batch_sizes[2]: must be at most 65536, got 100000",
                  "batch_sizes[4]: duplicate of batch_sizes[3] (16)",
                  "loader_workers[0]: must be between 0 and 64, got -1",
                  "loader_workers[1]: must be between 0 and 64, got 65"));
}

TEST(ValidateSweepTest, UnspecifiedTasksAndRuntimes) {
  v1::SweepSpec s = GoodSpec();
  s.add_tasks(v1::TASK_UNSPECIFIED);
  s.add_tasks(static_cast<v1::Task>(9));
  s.add_runtimes(v1::RUNTIME_UNSPECIFIED);
  EXPECT_THAT(Problems(s),
              ElementsAre("tasks[1]: task is unspecified (use train, infer or baseload)",
                          "tasks[2]: unknown task value 9 (use train, infer or baseload)",
                          "runtimes[1]: runtime is unspecified (use native, "
                          "container, vm or container_in_vm)"));
}

TEST(ValidateSweepTest, StopConditionsAndNegativeValues) {
  v1::SweepSpec s = GoodSpec();
  s.set_epochs(0);
  EXPECT_THAT(Problems(s),
              ElementsAre("epochs/minibatches/duration_s: one of epochs, "
                          "minibatches, duration_s must be positive (the run "
                          "needs a stop condition)"));
  s.set_epochs(-1);
  s.set_minibatches(-2);
  s.set_duration_s(-0.5);
  EXPECT_THAT(Problems(s),
              ElementsAre("epochs: must not be negative, got -1",
                          "minibatches: must not be negative, got -2",
                          "duration_s: must not be negative, got -0.5",
                          "epochs/minibatches/duration_s: one of epochs, "
                          "minibatches, duration_s must be positive (the run "
                          "needs a stop condition)"));
  s = GoodSpec();
  s.set_epochs(0);
  s.set_duration_s(30);
  EXPECT_THAT(Problems(s), IsEmpty());  // a duration alone is a stop condition
}

TEST(ValidateSweepTest, ScalarRanges) {
  v1::SweepSpec s = GoodSpec();
  s.set_repetitions(0);
  s.set_threads(-1);
  s.set_telemetry_hz(1000.5);
  s.set_timeout_s(-1);
  s.set_max_retries(-1);
  EXPECT_THAT(Problems(s),
              ElementsAre("repetitions: must be at least 1, got 0",
                          "threads: must be between 0 and 1024 (0 = all "
                          "cores), got -1",
                          "telemetry_hz: must be more than 0 and at most 1000, "
                          "got 1000.5",
                          "timeout_s: must be a positive number of seconds, "
                          "got -1",
                          "max_retries: must be between 0 and 100, got -1"));
  s = GoodSpec();
  s.set_telemetry_hz(0);
  EXPECT_THAT(Problems(s), ElementsAre("telemetry_hz: must be more than 0 and "
                                       "at most 1000, got 0"));
  s.set_telemetry_hz(1000);
  EXPECT_THAT(Problems(s), IsEmpty());
}

// Huge stop conditions and timeouts are refused at submit (the agent would
// reject every run of them), each naming its field.
TEST(ValidateSweepTest, HugeAndNonFiniteRunLimitsAreRefused) {
  v1::SweepSpec s = GoodSpec();
  s.set_timeout_s(1e308);
  EXPECT_THAT(Problems(s), ElementsAre("timeout_s: must be at most 604800 "
                                       "(7 days), got 1e+308"));
  s.set_timeout_s(std::nan(""));
  EXPECT_THAT(Problems(s), ElementsAre("timeout_s: must be a positive number "
                                       "of seconds, got nan"));
  s = GoodSpec();
  s.set_duration_s(1e308);
  EXPECT_THAT(Problems(s),
              Contains("duration_s: must be at most 604800 (7 days), got "
                       "1e+308"));
  s = GoodSpec();
  s.set_epochs(2000000);
  s.set_minibatches(int64_t{1} << 40);
  EXPECT_THAT(Problems(s),
              ElementsAre("epochs: must be at most 1000000, got 2000000",
                          "minibatches: must be at most 1000000000, got "
                          "1099511627776"));
  s = GoodSpec();
  s.set_timeout_s(604800);
  EXPECT_THAT(Problems(s), IsEmpty());
}

TEST(ValidateSweepTest, TimeoutMustExceedDuration) {
  v1::SweepSpec s = GoodSpec();
  s.set_duration_s(900);  // default timeout 600
  EXPECT_THAT(Problems(s),
              ElementsAre("timeout_s: 600 is not longer than duration_s 900, "
                          "so every run would time out"));
}

TEST(ValidateSweepTest, RunCountLimit) {
  v1::SweepSpec s = GoodSpec();
  s.clear_batch_sizes();
  for (int b = 1; b <= 1000; ++b) s.add_batch_sizes(b);
  s.set_repetitions(100);  // exactly 100000 runs: allowed
  EXPECT_THAT(Problems(s), IsEmpty());
  s.set_repetitions(101);
  EXPECT_THAT(Problems(s), ElementsAre("sweep: expands to 101000 runs, more "
                                       "than the limit of 100000 per sweep"));
}

TEST(ValidateSweepTest, ReportsAllProblemsTogether) {
  v1::SweepSpec s = GoodSpec();
  s.clear_name();
  s.set_models(0, "resnet9");
  s.add_device_classes("tx2");
  s.set_batch_sizes(0, 0);
  s.set_loader_workers(0, -1);
  s.add_power_modes()->set_preset("TURBO");
  s.set_epochs(0);
  s.set_max_retries(-3);
  const std::vector<std::string> lines = Problems(s);
  EXPECT_THAT(
      lines,
      ElementsAre("name: must not be empty",
                  "device_classes[1]: unknown device class 'tx2' (known: "
                  "host, nano, orin-agx, orin-nano, orin-nx, thor, xavier-agx, xavier-nx)",
                  "models[0]: unknown model 'resnet9' (known: alexnet, "
                  "deepspeech2, dqn, gpt2_small, inception_v3, lenet5, "
                  "lstm_lm, memnet, mobilebert, mobilenetv3, resnet18, "
                  "resnet50, seq2seq, seq2seq_lstm, squeezenet1_1, vae, "
                  "vgg11, vgg19)",
                  "batch_sizes[0]: must be positive, got 0",
                  "loader_workers[0]: must be between 0 and 64, got -1",
                  "power_modes[1].preset: unknown preset 'TURBO' for orin-agx "
                  "(known: MAXN, MODE_15W, MODE_30W, MODE_50W, hipc-MAXN, PM1_CPU, "
                  "PM2_GPU, PM3_MEM, sigmetrics-orin-MAXN)",
                  "epochs/minibatches/duration_s: one of epochs, minibatches, "
                  "duration_s must be positive (the run needs a stop "
                  "condition)",
                  "max_retries: must be between 0 and 100, got -3"));
}

TEST(ValidateSweepTest, BaseloadOnlySweepNeedsNoWorkloadButADuration) {
  v1::SweepSpec s;
  s.set_name("idle");
  s.add_device_classes("orin-agx");
  s.add_tasks(v1::TASK_BASELOAD);
  s.set_duration_s(60);
  s = WithDefaults(s);
  EXPECT_THAT(Problems(s), IsEmpty());
  s.set_duration_s(0);
  s.set_epochs(3);  // not a stop condition for an idle measurement
  EXPECT_THAT(Problems(s),
              ElementsAre("duration_s: a baseload task measures the idle "
                          "device for duration_s, which must be positive"));
  // Names given anyway are still checked.
  s.set_duration_s(60);
  s.add_models("resnet9");
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("models[0]: unknown model 'resnet9'"),
                          HasSubstr("datasets: at least one dataset")));
}

TEST(ValidateSweepTest, MixedSweepStillNeedsTheWorkloadAxes) {
  v1::SweepSpec s = GoodSpec();
  s.add_tasks(v1::TASK_BASELOAD);
  s.set_duration_s(30);
  EXPECT_THAT(Problems(s), IsEmpty());
  s.clear_batch_sizes();
  s.clear_models();
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("models: at least one model is required"),
                          "batch_sizes: at least one batch size is required"));
}

TEST(ValidateSweepTest, SpectrogramFramesMustFitDeepSpeech2) {
  v1::SweepSpec s = GoodSpec();
  s.clear_models();
  s.clear_datasets();
  s.add_workloads("deepspeech2/espeak-words");
  s.set_seq_len(20);
  EXPECT_THAT(Problems(s),
              ElementsAre("seq_len: 20 spectrogram frames do not fit "
                          "deepspeech2 (32 to 3000 frames of 10 ms; 0 for its "
                          "default of 256)"));
  s.set_seq_len(3001);
  EXPECT_THAT(Problems(s), ElementsAre(HasSubstr("seq_len: 3001 spectrogram "
                                                 "frames do not fit")));
  s.set_seq_len(400);
  EXPECT_THAT(Problems(s), IsEmpty());
  // With a text model in the same sweep, seq_len must fit both.
  s.add_workloads("mobilebert/wikitext");
  s.set_seq_len(600);
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("seq_len: 600 does not fit mobilebert")));
  s.set_seq_len(20);
  EXPECT_THAT(Problems(s),
              ElementsAre(HasSubstr("do not fit deepspeech2")));
  // deepspeech2 takes speech sets and synthetic only.
  v1::SweepSpec images = GoodSpec();
  images.clear_models();
  images.clear_datasets();
  images.add_workloads("deepspeech2/mnist");
  EXPECT_THAT(Problems(images),
              ElementsAre(HasSubstr("deepspeech2 cannot use dataset mnist")));
}

}  // namespace
}  // namespace powersweep
