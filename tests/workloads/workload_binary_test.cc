// End-to-end: runs the built powersweep-workload binary as the agent would
// and checks its records, exit codes and messages.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <unistd.h>

#include <filesystem>
#include <numeric>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/proto_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "powersweep/v1/records.pb.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/idx_reader.h"

extern char** environ;

namespace powersweep {
namespace {

using ::powersweep::testing::IdxHeader;
using ::powersweep::testing::LabelsPayload;
using ::powersweep::testing::ReadFile;
using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteGzFile;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist";

struct Outcome {
  int exit_code = -1;
  std::string out;      // stdout
  std::string err;      // stderr
  std::string records;  // what was written to fd 3
};

// Runs the workload with `args`, stdout, stderr and fd 3 sent to files.
Outcome RunWorkloadBinary(const std::vector<std::string>& args) {
  TempDir dir;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const int mode = O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(&actions, 1, dir.File("out").c_str(), mode,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, dir.File("err").c_str(), mode,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 3, dir.File("rec").c_str(), mode,
                                   0600);
  std::vector<std::string> argv_s = {POWERSWEEP_WORKLOAD_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  Outcome o;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return o;
  int status = 0;
  waitpid(pid, &status, 0);
  o.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = ReadFile(dir.File("out"));
  o.err = ReadFile(dir.File("err"));
  o.records = ReadFile(dir.File("rec"));
  return o;
}

std::vector<v1::WorkloadEvent> ParseRecords(const std::string& text) {
  std::vector<v1::WorkloadEvent> events;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    v1::WorkloadEvent e;
    absl::Status st = FromJson(std::string(line), &e);
    EXPECT_TRUE(st.ok()) << st << " in line: " << line;
    events.push_back(e);
  }
  return events;
}

bool HaveFashionMnist() {
  struct stat st;
  return stat(kFashionMnist, &st) == 0;
}

double MeanLoss(const std::vector<v1::WorkloadEvent>& e, size_t from,
                size_t to) {
  double sum = 0;
  for (size_t i = from; i < to; ++i) sum += e[i].minibatch().loss();
  return sum / static_cast<double>(to - from);
}

TEST(WorkloadBinaryTest, FortyTrainingMinibatchesAreRecordedAndLossFalls) {
  if (!HaveFashionMnist()) GTEST_SKIP() << kFashionMnist << " not installed";
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "lenet5", "--dataset-path", kFashionMnist, "--task",
       "train", "--batch-size", "32", "--workers", "2", "--minibatches", "40",
       "--seed", "1", "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "") << "records go to --records-fd only";
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 42u);

  ASSERT_TRUE(e.front().has_started());
  const v1::BuildProvenance& p = e.front().started();
  EXPECT_EQ(p.framework(), "libtorch");
  EXPECT_EQ(p.framework_version(), "1.13.0");
  EXPECT_THAT(p.binary_fingerprint(), StartsWith("build-id:"));
  EXPECT_THAT(p.framework_fingerprint(), StartsWith("build-id:"));
  EXPECT_THAT(p.framework_path(), HasSubstr("libtorch_cpu"));
  EXPECT_EQ(p.threads(), 1);
  EXPECT_EQ(p.device(), "cpu");
  EXPECT_FALSE(p.kernel().empty());

  double t = 0;
  for (int i = 1; i <= 40; ++i) {
    ASSERT_TRUE(e[i].has_minibatch()) << "line " << i;
    const v1::MinibatchRecord& r = e[i].minibatch();
    EXPECT_EQ(r.index(), i - 1);
    EXPECT_EQ(r.epoch(), 0);
    EXPECT_EQ(r.samples(), 32);
    EXPECT_GT(r.compute_s(), 0);
    EXPECT_LE(r.stall_s() + r.compute_s(), r.e2e_s()) << "minibatch " << i - 1;
    EXPECT_NEAR(r.t_start_s(), t, 1e-9) << "e2e intervals tile the run";
    t += r.e2e_s();
  }
  EXPECT_LT(MeanLoss(e, 31, 41), MeanLoss(e, 1, 11)) << "training learns";

  ASSERT_TRUE(e.back().has_finished());
  EXPECT_EQ(e.back().finished().minibatches(), 40);
  EXPECT_EQ(e.back().finished().stop_reason(), "minibatches");
  EXPECT_GE(e.back().finished().elapsed_s(), t);
}

TEST(WorkloadBinaryTest, InferenceReportsLossAndStopsOnDuration) {
  if (!HaveFashionMnist()) GTEST_SKIP() << kFashionMnist << " not installed";
  Outcome o = RunWorkloadBinary({"run", "--dataset-path", kFashionMnist,
                                 "--task", "infer", "--batch-size", "100",
                                 "--workers", "0", "--duration-s", "0.2",
                                 "--seed", "3", "--threads", "1"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.out);  // default fd 1
  ASSERT_GE(e.size(), 3u);
  for (size_t i = 1; i + 1 < e.size(); ++i) {
    ASSERT_TRUE(e[i].has_minibatch());
    EXPECT_GT(e[i].minibatch().loss(), 0) << "inference reports its loss";
    EXPECT_EQ(e[i].minibatch().samples(), 100);
  }
  ASSERT_TRUE(e.back().has_finished());
  EXPECT_EQ(e.back().finished().stop_reason(), "duration");
  EXPECT_GE(e.back().finished().elapsed_s(), 0.2);
  EXPECT_EQ(e.back().finished().minibatches(),
            static_cast<int64_t>(e.size() - 2));
}

TEST(WorkloadBinaryTest, WarmupMinibatchesAreFlaggedOnlyWhenAskedOnTheCpu) {
  if (!HaveFashionMnist()) GTEST_SKIP() << kFashionMnist << " not installed";
  for (const char* warmup : {"0", "2"}) {
    SCOPED_TRACE(std::string("--warmup-minibatches ") + warmup);
    Outcome o = RunWorkloadBinary(
        {"run", "--dataset-path", kFashionMnist, "--task", "train",
         "--batch-size", "16", "--workers", "0", "--minibatches", "5",
         "--warmup-minibatches", warmup, "--seed", "1", "--threads", "1",
         "--records-fd", "3"});
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
    ASSERT_EQ(e.size(), 7u);
    const int flagged = std::string(warmup) == "2" ? 2 : 0;  // CPU default 0
    for (int i = 1; i <= 5; ++i) {
      EXPECT_EQ(e[i].minibatch().warmup(), i <= flagged) << "minibatch " << i;
      EXPECT_EQ(e[i].minibatch().h2d_s(), 0) << "no copy on the CPU";
    }
    EXPECT_FALSE(e.front().started().has_gpu()) << "no GPU provenance";
  }
  Outcome bad = RunWorkloadBinary(
      {"run", "--dataset-path", kFashionMnist, "--minibatches", "5",
       "--warmup-minibatches", "-2"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--warmup-minibatches: must be -1 (none)"));
}

TEST(WorkloadBinaryTest, TruncatedDatasetExitsOneNamingTheFile) {
  TempDir data;
  std::string images = data.File("train-images-idx3-ubyte.gz");
  WriteGzFile(images, IdxHeader(kIdxImagesMagic, {60000, 28, 28}) +
                          std::string(1000, '\0'));
  WriteGzFile(data.File("train-labels-idx1-ubyte.gz"),
              IdxHeader(kIdxLabelsMagic, {60000}) + LabelsPayload(60000));
  Outcome o = RunWorkloadBinary({"run", "--dataset-path", data.path(), "--task",
                                 "train", "--batch-size", "8", "--minibatches",
                                 "5", "--threads", "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr(images));
  EXPECT_THAT(o.err, HasSubstr("truncated"));
  EXPECT_THAT(o.records, ::testing::Not(HasSubstr("finished")));
}

TEST(WorkloadBinaryTest, BadArgumentsExitTwoNamingTheFlag) {
  Outcome zero = RunWorkloadBinary({"run", "--dataset-path", "/tmp",
                                    "--batch-size", "0", "--minibatches", "5"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err, HasSubstr("--batch-size: must be at least 1, got 0"));

  Outcome unknown = RunWorkloadBinary({"run", "--batch-szie", "4"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--batch-szie: unknown flag"));
}

TEST(WorkloadBinaryTest, HelpDescribesTheCommandAndExitsZero) {
  Outcome o = RunWorkloadBinary({"--help"});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_THAT(o.out, HasSubstr("powersweep-workload run --model M"));
  EXPECT_THAT(o.out, HasSubstr("powersweep-workload describe --model M"));
  EXPECT_THAT(o.out, HasSubstr("powersweep-workload gen-dataset --format"));
  EXPECT_THAT(o.out, HasSubstr("--page-cache"));
  EXPECT_THAT(o.out, HasSubstr("--records-fd"));
  EXPECT_THAT(o.out, HasSubstr("--duration-s"));
}

// A data set generated by the binary itself, in a directory of the build
// tree (a disk file system: the page cache can be dropped there, unlike on
// a tmpfs /tmp). Removed at the end of the test.
class GeneratedSet {
 public:
  GeneratedSet(const std::string& name, const std::vector<std::string>& args)
      : path_(std::filesystem::current_path().string() + "/gen_" + name + "_" +
              std::to_string(getpid())) {
    std::filesystem::remove_all(path_);
    std::vector<std::string> a = {"gen-dataset", "--out", path_};
    a.insert(a.end(), args.begin(), args.end());
    Outcome o = RunWorkloadBinary(a);
    EXPECT_EQ(o.exit_code, 0) << o.err;
  }
  ~GeneratedSet() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(WorkloadSuiteTest, DescribeCountsResNet18OnTheNetwork) {
  Outcome o = RunWorkloadBinary({"describe", "--model", "resnet18", "--json"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("\"params\":11181642"));
  EXPECT_THAT(o.out, HasSubstr("\"forward_macs\":37016576"));
  Outcome bad = RunWorkloadBinary({"describe", "--model", "vgg11",
                                   "--input-size", "16"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--input-size"));
}

TEST(WorkloadSuiteTest, ResNet18TrainsOnACifar10SetAndRecordsTheWorkload) {
  GeneratedSet set("cifar", {"--format", "cifar10", "--train-count", "96",
                             "--test-count", "32"});
  // --input-size is for image folders; a CIFAR-10 set keeps 32x32 (a
  // sweep's input_size reaches every run).
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "resnet18", "--dataset-path", set.path(), "--task",
       "train", "--batch-size", "16", "--workers", "1", "--minibatches", "3",
       "--input-size", "64", "--seed", "1", "--threads", "2", "--records-fd",
       "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 5u);
  const v1::WorkloadInfo& w = e[0].started().workload();
  EXPECT_EQ(w.model(), "resnet18");
  EXPECT_EQ(w.params(), 11181642);
  EXPECT_EQ(w.forward_macs(), 37016576);
  EXPECT_THAT(w.input_shape(), ::testing::ElementsAre(3, 32, 32));
  EXPECT_EQ(w.dataset_format(), "cifar10");
  EXPECT_EQ(w.dataset_samples(), 96);
  EXPECT_FALSE(w.reads_per_sample());
  EXPECT_FALSE(w.storage().fs_type().empty());
  EXPECT_EQ(e[0].started().device(), "cpu");
  // Only the run's first minibatch starts an epoch.
  EXPECT_TRUE(e[1].minibatch().has_page_cache_resident());
  EXPECT_FALSE(e[2].minibatch().has_page_cache_resident());
}

// The SIGMETRICS page-cache study in miniature: a JPEG folder read per
// sample, two epochs; kept, epoch 1 finds it cached; dropped, it does not.
TEST(WorkloadSuiteTest, PageCacheDropLeavesEveryEpochUncached) {
  GeneratedSet set("folder", {"--format", "image-folder", "--train-count",
                              "48", "--test-count", "8", "--classes", "4"});
  for (const std::string policy : {"keep", "drop"}) {
    Outcome o = RunWorkloadBinary(
        {"run", "--model", "mobilenetv3", "--dataset-path", set.path(),
         "--input-size", "32", "--task", "train", "--batch-size", "16",
         "--workers", "2", "--epochs", "2", "--seed", "1", "--threads", "2",
         "--page-cache", policy, "--records-fd", "3"});
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
    ASSERT_EQ(e.size(), 8u);  // started, 3 + 3 minibatches, finished
    EXPECT_EQ(e[0].started().workload().dataset_format(), "image-folder");
    EXPECT_TRUE(e[0].started().workload().reads_per_sample());
    EXPECT_EQ(e[0].started().workload().num_classes(), 4);
    ASSERT_TRUE(e[4].minibatch().has_page_cache_resident()) << policy;
    EXPECT_EQ(e[4].minibatch().epoch(), 1);
    const double epoch1 = e[4].minibatch().page_cache_resident();
    if (policy == "keep") {
      EXPECT_GT(epoch1, 0.9) << "epoch 0 read every file";
    } else {
      EXPECT_LT(epoch1, 0.1) << "dropped before epoch 1";
    }
  }
}

TEST(WorkloadSuiteTest, PreloadedInferenceCyclesOverMinibatchesInMemory) {
  GeneratedSet set("preload", {"--format", "image-folder", "--train-count",
                               "16", "--test-count", "32", "--classes", "4"});
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "resnet50", "--dataset-path", set.path(),
       "--input-size", "32", "--task", "infer", "--batch-size", "8",
       "--workers", "1", "--minibatches", "6", "--preload", "--preload-limit",
       "2", "--seed", "1", "--threads", "2", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 8u);
  EXPECT_TRUE(e[0].started().workload().preloaded());
  EXPECT_THAT(o.err, HasSubstr("preloaded 2 minibatches"));
  // Two minibatches in memory, used in turn: their losses repeat.
  EXPECT_DOUBLE_EQ(e[1].minibatch().loss(), e[3].minibatch().loss());
  EXPECT_DOUBLE_EQ(e[2].minibatch().loss(), e[4].minibatch().loss());
  EXPECT_EQ(e[6].minibatch().index(), 5);
}

TEST(WorkloadSuiteTest, CorruptJpegFailsTheRunNamingTheFile) {
  GeneratedSet set("corrupt", {"--format", "image-folder", "--train-count",
                               "16", "--test-count", "4", "--classes", "2"});
  std::string victim;
  for (const auto& f : std::filesystem::recursive_directory_iterator(
           set.path() + "/train")) {
    if (f.is_regular_file()) victim = f.path().string();
  }
  ASSERT_FALSE(victim.empty());
  std::filesystem::resize_file(victim, 100);
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "resnet18", "--dataset-path", set.path(),
       "--input-size", "32", "--task", "train", "--batch-size", "16",
       "--workers", "2", "--minibatches", "2", "--seed", "1", "--threads",
       "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr(victim));
}

TEST(WorkloadSuiteTest, LeNetOnAnRgbSetIsRefusedWithBothShapes) {
  GeneratedSet set("rgb", {"--format", "cifar10", "--train-count", "32",
                           "--test-count", "16"});
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "lenet5", "--dataset-path", set.path(), "--task",
       "train", "--batch-size", "8", "--workers", "0", "--minibatches", "1",
       "--seed", "1", "--threads", "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr(set.path() + ": a cifar10 set of 3x32x32 "
                               "samples in 10 classes does not fit model "
                               "lenet5"));
}

// `synthetic` data (common/synthetic_dataset.h): no directory, one random
// minibatch of the model's own input shape, made before timing.
TEST(WorkloadSyntheticTest, TrainsOnRandomTensorsOfTheModelsShapeWithoutIo) {
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "resnet18", "--dataset-path", "synthetic", "--task",
       "train", "--batch-size", "8", "--minibatches", "6", "--seed", "3",
       "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 8u);
  const v1::WorkloadInfo& w = e.front().started().workload();
  EXPECT_EQ(w.model(), "resnet18");
  EXPECT_EQ(w.dataset_format(), "synthetic");
  EXPECT_EQ(w.dataset_path(), "synthetic");
  EXPECT_EQ(w.dataset_bytes(), 0);
  EXPECT_EQ(w.dataset_samples(), 8);
  EXPECT_EQ(w.storage().kind(), "memory");
  EXPECT_EQ(w.input_shape_size(), 3);
  EXPECT_EQ(w.input_shape(1), 32);  // resnet18's study default, 3x32x32
  for (size_t i = 1; i + 1 < e.size(); ++i) {
    const v1::MinibatchRecord& r = e[i].minibatch();
    EXPECT_EQ(r.index(), static_cast<int64_t>(i - 1));
    EXPECT_EQ(r.epoch(), 0);
    EXPECT_EQ(r.samples(), 8);
    EXPECT_GT(r.loss(), 0);
    // Only a hand-over: far below the minibatch's compute.
    EXPECT_LT(r.stall_s(), r.compute_s() / 10) << "minibatch " << i - 1;
  }
  EXPECT_EQ(e.back().finished().minibatches(), 6);
  EXPECT_THAT(o.err, HasSubstr("synthetic data"));
}

TEST(WorkloadSyntheticTest, InputSizeSetsTheShapeAndEpochsAreRefused) {
  Outcome sized = RunWorkloadBinary(
      {"run", "--model", "vgg11", "--dataset-path", "synthetic", "--task",
       "infer", "--batch-size", "2", "--minibatches", "2", "--input-size",
       "64", "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(sized.records);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.front().started().workload().input_shape(2), 64);

  Outcome epochs = RunWorkloadBinary(
      {"run", "--model", "lenet5", "--dataset-path", "synthetic", "--epochs",
       "1", "--records-fd", "3"});
  EXPECT_EQ(epochs.exit_code, 2);
  EXPECT_THAT(epochs.err, HasSubstr("--epochs: synthetic data has no epochs"));
}

// The sequence models on `synthetic`: one random minibatch of token-id
// windows ([batch, seq_len] within the vocabulary, Model::SyntheticBatch)
// at --seq-len and --vocab; records carry tokens like a text set's.
TEST(WorkloadSyntheticTest, SequenceModelsTakeRandomTokenWindows) {
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "lstm_lm", "--dataset-path", "synthetic", "--task",
       "train", "--seq-len", "12", "--vocab", "300", "--batch-size", "4",
       "--minibatches", "3", "--seed", "2", "--threads", "1",
       "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 5u);
  const v1::WorkloadInfo& w = e.front().started().workload();
  EXPECT_EQ(w.dataset_format(), "synthetic");
  EXPECT_THAT(w.input_shape(), ::testing::ElementsAre(1, 1, 13));
  EXPECT_EQ(w.seq_len(), 12);
  EXPECT_EQ(w.vocab(), 300);
  EXPECT_EQ(w.num_classes(), 300);
  for (size_t i = 1; i < 4; ++i) {
    const v1::MinibatchRecord& r = e[i].minibatch();
    EXPECT_EQ(r.samples(), 4);
    EXPECT_EQ(r.tokens(), 4 * 12);
    // Next-token cross-entropy of random tokens: about ln(300) = 5.70 at
    // the start of training.
    EXPECT_GT(r.loss(), 4.7) << "minibatch " << i - 1;
    EXPECT_LT(r.loss(), 6.7) << "minibatch " << i - 1;
  }
  EXPECT_THAT(o.err, HasSubstr("tokens/s"));

  o = RunWorkloadBinary(
      {"run", "--model", "mobilebert", "--dataset-path", "synthetic",
       "--task", "infer", "--seq-len", "16", "--vocab", "200",
       "--batch-size", "2", "--minibatches", "2", "--seed", "2",
       "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_THAT(e.front().started().workload().input_shape(),
              ::testing::ElementsAre(1, 1, 16));
  EXPECT_EQ(e.front().started().workload().vocab(), 200);
  EXPECT_EQ(e[1].minibatch().tokens(), 2 * 16);
  EXPECT_GT(e[1].minibatch().loss(), 0);

  // Image options do not apply to them: refused naming the flag.
  o = RunWorkloadBinary({"run", "--model", "lstm_lm", "--dataset-path",
                         "synthetic", "--input-size", "64", "--minibatches",
                         "1", "--threads", "1", "--records-fd", "3"});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_THAT(o.err, HasSubstr("--input-size"));
}

// The sequence models end to end: gen-dataset tokenises the WordNet glosses
// (Debian's wordnet-base), the binary trains lstm_lm and runs mobilebert
// inference on it, and records tokens.
TEST(WorkloadSuiteTest, TextModelsRunOnTheWordNetGlosses) {
  TempDir dir;
  const std::string set = dir.File("wordnet");
  Outcome g = RunWorkloadBinary({"gen-dataset", "--format", "text",
                                 "--from-wordnet", "/usr/share/wordnet",
                                 "--vocab", "3000", "--out", set});
  ASSERT_EQ(g.exit_code, 0) << g.err << " (install Debian's wordnet-base)";
  EXPECT_THAT(g.out, HasSubstr("vocabulary of 3000 (WordNet glosses"));

  Outcome o = RunWorkloadBinary(
      {"run", "--model", "lstm_lm", "--dataset-path", set, "--task", "train",
       "--batch-size", "8", "--workers", "1", "--minibatches", "3", "--seed",
       "1", "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 5u);
  const v1::WorkloadInfo& w = e.front().started().workload();
  EXPECT_EQ(w.model(), "lstm_lm");
  EXPECT_EQ(w.dataset_format(), "text");
  EXPECT_THAT(w.input_shape(), ::testing::ElementsAre(1, 1, 36));
  EXPECT_EQ(w.seq_len(), 35);
  EXPECT_EQ(w.vocab(), 3000);
  EXPECT_EQ(w.num_classes(), 3000);
  EXPECT_EQ(w.params(), 3000 * 200 + 2 * (4 * 200 * 400 + 1600) +
                            200 * 3000 + 3000);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(e[i].minibatch().samples(), 8);
    EXPECT_EQ(e[i].minibatch().tokens(), 8 * 35);
    EXPECT_GT(e[i].minibatch().loss(), 0);
  }
  EXPECT_THAT(o.err, HasSubstr("tokens/s"));

  o = RunWorkloadBinary(
      {"run", "--model", "mobilebert", "--dataset-path", set, "--task",
       "infer", "--seq-len", "32", "--batch-size", "4", "--workers", "1",
       "--minibatches", "2", "--seed", "1", "--threads", "1", "--records-fd",
       "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_THAT(e.front().started().workload().input_shape(),
              ::testing::ElementsAre(1, 1, 32));
  EXPECT_EQ(e[1].minibatch().tokens(), 4 * 32);

  // A sequence length the model cannot take is a usage error naming it.
  o = RunWorkloadBinary(
      {"run", "--model", "mobilebert", "--dataset-path", set, "--seq-len",
       "600", "--batch-size", "4", "--minibatches", "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--seq-len"));
  EXPECT_THAT(o.err, HasSubstr("512"));
  // An image model on the text set names both.
  o = RunWorkloadBinary({"run", "--model", "resnet18", "--dataset-path", set,
                         "--batch-size", "4", "--minibatches", "1",
                         "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("does not fit model resnet18"));
}

// Fathom's seq2seq and memnet through the binary: gen-dataset writes a
// Wikipedia-shaped text set and a bAbI set; seq2seq trains on the text set
// and decodes greedily (and seq2seq_lstm decodes); memnet trains on the bAbI set; records carry
// tokens; the wrong pairings are refused naming both.
TEST(WorkloadSuiteTest, Seq2SeqAndMemNetRunOnTheirSets) {
  GeneratedSet text("wiki", {"--format", "text", "--train-count", "5000",
                             "--test-count", "2000", "--vocab", "200"});
  GeneratedSet babi("babi", {"--format", "babi", "--train-count", "100",
                             "--test-count", "40"});
  Outcome o = RunWorkloadBinary(
      {"run", "--model", "seq2seq", "--dataset-path", text.path(), "--task",
       "train", "--seq-len", "10", "--batch-size", "4", "--workers", "1",
       "--minibatches", "2", "--seed", "1", "--threads", "1",
       "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  const v1::WorkloadInfo& w = e.front().started().workload();
  EXPECT_EQ(w.model(), "seq2seq");
  EXPECT_EQ(w.dataset_format(), "text");
  EXPECT_THAT(w.input_shape(), ::testing::ElementsAre(1, 1, 10));
  EXPECT_EQ(w.vocab(), 200);
  EXPECT_EQ(e[1].minibatch().tokens(), 4 * 10);
  // About ln(200) = 5.3 before training.
  EXPECT_NEAR(e[1].minibatch().loss(), std::log(200.0), 0.5);
  EXPECT_THAT(o.err, HasSubstr("tokens/s"));
  o = RunWorkloadBinary(
      {"run", "--model", "seq2seq", "--dataset-path", text.path(), "--task",
       "infer", "--seq-len", "10", "--batch-size", "4", "--minibatches", "2",
       "--seed", "1", "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[1].minibatch().tokens(), 4 * 10);  // 10 greedy steps each
  // seq2seq_lstm, its LSTM-cell variant, decodes the same way.
  o = RunWorkloadBinary(
      {"run", "--model", "seq2seq_lstm", "--dataset-path", text.path(),
       "--task", "infer", "--seq-len", "10", "--batch-size", "4",
       "--minibatches", "1", "--seed", "1", "--threads", "1",
       "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e.front().started().workload().model(), "seq2seq_lstm");
  EXPECT_EQ(e[1].minibatch().tokens(), 4 * 10);
  EXPECT_NEAR(e[1].minibatch().loss(), std::log(200.0), 0.5);

  TempDir dir;
  Outcome g = RunWorkloadBinary({"gen-dataset", "--format", "babi", "--out",
                                 dir.File("babi5"), "--train-count", "5"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_THAT(g.out, HasSubstr("wrote a babi data set"));
  o = RunWorkloadBinary(
      {"run", "--model", "memnet", "--dataset-path", babi.path(), "--task",
       "train", "--batch-size", "8", "--minibatches", "3", "--seed", "1",
       "--threads", "1", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 5u);
  const v1::WorkloadInfo& m = e.front().started().workload();
  EXPECT_EQ(m.dataset_format(), "babi");
  EXPECT_EQ(m.dataset_samples(), 100);
  EXPECT_THAT(m.input_shape(), ::testing::ElementsAre(1, 1, 51 * 8));
  EXPECT_EQ(m.seq_len(), 8);
  EXPECT_EQ(m.vocab(), 23);
  EXPECT_EQ(m.params(), 4 * 23 * 20 + 4 * 50 * 20);
  EXPECT_EQ(e[1].minibatch().tokens(), 8 * 51 * 8);
  EXPECT_NEAR(e[1].minibatch().loss(), std::log(23.0), 0.5);

  // memnet reads bAbI sets only, and a bAbI set fits memnet only.
  o = RunWorkloadBinary({"run", "--model", "memnet", "--dataset-path",
                         text.path(), "--batch-size", "4", "--minibatches",
                         "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("does not fit model memnet"));
  o = RunWorkloadBinary({"run", "--model", "lstm_lm", "--dataset-path",
                         babi.path(), "--batch-size", "4", "--minibatches",
                         "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("a babi set does not fit model lstm_lm"));
  // A sentence longer than --seq-len names the file and line.
  o = RunWorkloadBinary({"run", "--model", "memnet", "--dataset-path",
                         babi.path(), "--seq-len", "4", "--batch-size", "4",
                         "--minibatches", "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("qa1_single-supporting-fact_train.txt:1:"));
}

// Inception-v3 takes image folders at its own 299x299 by default; its
// training (auxiliary classifier) refuses a smaller --input-size, and
// AlexNet refuses CIFAR-10's 32x32, naming the flag and the minimum.
TEST(WorkloadSuiteTest, ModelsRefuseInputsTheirDownsamplingCannotTake) {
  GeneratedSet folder("inception", {"--format", "image-folder",
                                    "--train-count", "8", "--test-count", "4",
                                    "--classes", "2"});
  Outcome infer = RunWorkloadBinary(
      {"run", "--model", "inception_v3", "--dataset-path", folder.path(),
       "--task", "infer", "--batch-size", "2", "--minibatches", "1",
       "--seed", "1", "--threads", "2", "--records-fd", "3"});
  ASSERT_EQ(infer.exit_code, 0) << infer.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(infer.records);
  ASSERT_FALSE(e.empty());
  EXPECT_THAT(e[0].started().workload().input_shape(),
              ::testing::ElementsAre(3, 299, 299));
  Outcome train = RunWorkloadBinary(
      {"run", "--model", "inception_v3", "--dataset-path", folder.path(),
       "--input-size", "224", "--task", "train", "--batch-size", "2",
       "--minibatches", "1", "--seed", "1", "--threads", "1", "--records-fd",
       "3"});
  EXPECT_EQ(train.exit_code, 1);
  EXPECT_THAT(train.err, HasSubstr("--input-size: 224 is too small to train "
                                   "inception_v3"));
  Outcome synthetic = RunWorkloadBinary(
      {"run", "--model", "inception_v3", "--dataset-path", "synthetic",
       "--input-size", "224", "--task", "train", "--batch-size", "2",
       "--minibatches", "1", "--threads", "1", "--records-fd", "3"});
  EXPECT_NE(synthetic.exit_code, 0);
  EXPECT_THAT(synthetic.err, HasSubstr("--input-size: 224 is too small to "
                                       "train inception_v3"));
  GeneratedSet cifar("alexnet", {"--format", "cifar10", "--train-count", "16",
                                 "--test-count", "8"});
  Outcome alexnet = RunWorkloadBinary(
      {"run", "--model", "alexnet", "--dataset-path", cifar.path(), "--task",
       "train", "--batch-size", "8", "--minibatches", "1", "--seed", "1",
       "--threads", "1", "--records-fd", "3"});
  EXPECT_EQ(alexnet.exit_code, 1);
  EXPECT_THAT(alexnet.err, HasSubstr("does not fit model alexnet"));
  EXPECT_THAT(alexnet.err, HasSubstr("--input-size: 32 is too small for "
                                     "alexnet (at least 63"));
}

// The speech model end to end: gen-dataset speaks utterances with
// Debian's espeak-ng, the binary trains deepspeech2 on them (WAV read and
// log-mel computed per sample in the loader), runs its inference (forward +
// greedy CTC decode) and records spectrogram frames as tokens.
TEST(WorkloadSuiteTest, DeepSpeech2RunsOnEspeakUtterances) {
  TempDir dir;
  const std::string set = dir.File("speech");
  Outcome g = RunWorkloadBinary({"gen-dataset", "--format", "speech",
                                 "--train-count", "8", "--test-count", "4",
                                 "--out", set});
  ASSERT_EQ(g.exit_code, 0) << g.err << " (install Debian's espeak-ng)";
  EXPECT_THAT(g.out, HasSubstr("wrote a speech data set"));

  Outcome o = RunWorkloadBinary(
      {"run", "--model", "deepspeech2", "--dataset-path", set, "--task",
       "train", "--batch-size", "4", "--workers", "1", "--minibatches", "2",
       "--seed", "1", "--threads", "2", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::vector<v1::WorkloadEvent> e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  const v1::WorkloadInfo& w = e.front().started().workload();
  EXPECT_EQ(w.model(), "deepspeech2");
  EXPECT_EQ(w.dataset_format(), "speech");
  EXPECT_THAT(w.input_shape(), ::testing::ElementsAre(1, 257, 80));
  EXPECT_EQ(w.seq_len(), 256);
  EXPECT_EQ(w.num_classes(), 29);
  EXPECT_EQ(w.params(), 4010813);
  EXPECT_TRUE(w.reads_per_sample());
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(e[i].minibatch().samples(), 4);
    EXPECT_EQ(e[i].minibatch().tokens(), 4 * 256);
    EXPECT_GT(e[i].minibatch().loss(), 0);
  }

  o = RunWorkloadBinary(
      {"run", "--model", "deepspeech2", "--dataset-path", set, "--task",
       "infer", "--batch-size", "2", "--seq-len", "300", "--minibatches",
       "1", "--seed", "1", "--threads", "2", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_THAT(e.front().started().workload().input_shape(),
              ::testing::ElementsAre(1, 301, 80));
  EXPECT_EQ(e[1].minibatch().tokens(), 2 * 300);

  // A window shorter than the utterances is a usage error naming the flag
  // and the file; another model on the set names both.
  o = RunWorkloadBinary(
      {"run", "--model", "deepspeech2", "--dataset-path", set, "--seq-len",
       "32", "--batch-size", "2", "--minibatches", "1", "--records-fd", "3"});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_THAT(o.err, HasSubstr("--seq-len"));
  EXPECT_THAT(o.err, HasSubstr(".wav"));
  o = RunWorkloadBinary({"run", "--model", "resnet18", "--dataset-path", set,
                         "--batch-size", "2", "--minibatches", "1",
                         "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("does not fit model resnet18"));
  o = RunWorkloadBinary({"run", "--model", "deepspeech2", "--dataset-path",
                         kFashionMnist, "--batch-size", "2", "--minibatches",
                         "1", "--records-fd", "3"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("does not fit model deepspeech2"));

  // synthetic: random spectrograms and transcripts, no I/O.
  o = RunWorkloadBinary({"run", "--model", "deepspeech2", "--dataset-path",
                         "synthetic", "--task", "train", "--batch-size", "2",
                         "--seq-len", "64", "--minibatches", "2", "--seed",
                         "1", "--threads", "2", "--records-fd", "3"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  e = ParseRecords(o.records);
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e.front().started().workload().dataset_format(), "synthetic");
  EXPECT_EQ(e[1].minibatch().tokens(), 2 * 64);
}

}  // namespace
}  // namespace powersweep
