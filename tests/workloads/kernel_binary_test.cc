// End-to-end: runs the built powersweep-workload binary on a small shape of
// each kernel family, as the agent would, and checks its records.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/kernel_shape.h"
#include "common/proto_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "powersweep/v1/records.pb.h"
#include "tests/workloads/test_files.h"

extern char** environ;

namespace powersweep {
namespace {

using ::powersweep::testing::ReadFile;
using ::powersweep::testing::TempDir;
using ::testing::HasSubstr;

struct Outcome {
  int exit_code = -1;
  std::string err;
  std::vector<v1::WorkloadEvent> events;  // from fd 3
};

Outcome RunKernelBinary(const std::vector<std::string>& args) {
  TempDir dir;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const int mode = O_WRONLY | O_CREAT | O_TRUNC;
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, dir.File("err").c_str(), mode,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 3, dir.File("rec").c_str(), mode,
                                   0600);
  std::vector<std::string> argv_s = {POWERSWEEP_WORKLOAD_BINARY, "run",
                                     "--records-fd", "3", "--threads", "1",
                                     "--seed", "1"};
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
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.err = ReadFile(dir.File("err"));
  for (absl::string_view line :
       absl::StrSplit(ReadFile(dir.File("rec")), '\n', absl::SkipEmpty())) {
    v1::WorkloadEvent e;
    absl::Status st = FromJson(std::string(line), &e);
    EXPECT_TRUE(st.ok()) << st << " in line: " << line;
    o.events.push_back(e);
  }
  return o;
}

// A run of `iterations` timed iterations: started, one minibatch record
// per iteration (samples 1, compute inside e2e, back to back), finished.
const v1::KernelInfo& ExpectKernelRun(const Outcome& o, const char* kernel,
                                      int iterations) {
  EXPECT_EQ(o.exit_code, 0) << o.err;
  static const v1::KernelInfo kEmpty;
  if (o.events.size() != static_cast<size_t>(iterations) + 2) {
    ADD_FAILURE() << "expected " << iterations + 2 << " records, got "
                  << o.events.size() << "\n" << o.err;
    return kEmpty;
  }
  const v1::WorkloadInfo& w = o.events[0].started().workload();
  EXPECT_EQ(w.model(), kernel);
  EXPECT_TRUE(w.has_kernel());
  EXPECT_EQ(w.params(), 0);
  EXPECT_EQ(w.dataset_path(), "");
  EXPECT_NEAR(static_cast<double>(w.forward_macs()), w.kernel().flops() / 2,
              1);
  EXPECT_GE(w.kernel().launches(), 1);
  EXPECT_GT(w.kernel().memory_available_bytes(), w.kernel().footprint_bytes());
  double prev_end = 0;
  for (int i = 0; i < iterations; ++i) {
    const v1::MinibatchRecord& r = o.events[i + 1].minibatch();
    EXPECT_EQ(r.index(), i);
    EXPECT_EQ(r.samples(), 1);
    EXPECT_EQ(r.stall_s(), 0);
    EXPECT_GT(r.compute_s(), 0);
    EXPECT_LE(r.compute_s(), r.e2e_s());
    EXPECT_NEAR(r.t_start_s(), prev_end, 1e-9);
    prev_end = r.t_start_s() + r.e2e_s();
  }
  EXPECT_EQ(o.events.back().finished().minibatches(), iterations);
  EXPECT_EQ(o.events.back().finished().stop_reason(), "minibatches");
  return o.events[0].started().workload().kernel();
}

TEST(KernelBinaryTest, GemmRecordsOneIterationPerRecordWithItsFlops) {
  Outcome o = RunKernelBinary({"--model", "gemm", "--kernel-shape", "m64-n32-k16-tn",
                   "--minibatches", "20"});
  const v1::KernelInfo& k = ExpectKernelRun(o, "gemm", 20);
  EXPECT_EQ(k.shape(), "m64-n32-k16-tn");
  EXPECT_EQ(k.row(), "");
  EXPECT_DOUBLE_EQ(k.flops(), 2.0 * 64 * 32 * 16);
  EXPECT_DOUBLE_EQ(k.launches(), 1);  // one mm per iteration
  EXPECT_EQ(k.warmup_iterations(), 5);
}

TEST(KernelBinaryTest, GemmTableRowIsRecordedWithItsShape) {
  Outcome o = RunKernelBinary({"--model", "gemm", "--kernel-shape", "deepbench-device-4",
                   "--minibatches", "3", "--warmup-iterations", "2"});
  const v1::KernelInfo& k = ExpectKernelRun(o, "gemm", 3);
  EXPECT_EQ(k.row(), "deepbench-device-4");
  EXPECT_EQ(k.shape(), "m64-n1-k1216-nn");  // gemm_problems.h device row 4
  EXPECT_EQ(k.warmup_iterations(), 2);
}

TEST(KernelBinaryTest, ConvRunsEachPass) {
  for (const char* pass : {"fwd", "bwd-data", "bwd-filter"}) {
    const std::string shape =
        std::string("n2-c3-h9-w9-k4-r3-s3-pad1-stride2-") + pass;
    Outcome o = RunKernelBinary({"--model", "conv", "--kernel-shape", shape,
                     "--minibatches", "5"});
    const v1::KernelInfo& k = ExpectKernelRun(o, "conv", 5);
    EXPECT_EQ(k.shape(), shape);
    // 5x5 output: 2 images x 4 filters x 25 positions x 27 taps x 2.
    EXPECT_DOUBLE_EQ(k.flops(), 2.0 * 2 * 4 * 25 * 27) << pass;
    EXPECT_DOUBLE_EQ(k.launches(), 1) << pass;  // one convolution kernel
  }
}

TEST(KernelBinaryTest, RnnCellsLaunchKernelsPerStepAndGruMoreThanLstm) {
  double launches[3] = {0, 0, 0};
  const char* cells[3] = {"vanilla", "lstm", "gru"};
  for (int i = 0; i < 3; ++i) {
    const std::string shape = std::string(cells[i]) + "-h16-b4-t6-fwdbwd";
    Outcome o = RunKernelBinary({"--model", "rnn", "--kernel-shape", shape,
                     "--minibatches", "4"});
    const v1::KernelInfo& k = ExpectKernelRun(o, "rnn", 4);
    EXPECT_EQ(k.shape(), shape);
    launches[i] = k.launches();
    EXPECT_GE(launches[i], 6 * 2) << cells[i] << ": kernels every step";
    // The twin's formula (common/kernel_shape.cc) is these counts.
    EXPECT_DOUBLE_EQ(launches[i],
                     KernelCostOf(*ParseKernelShape("rnn", shape)).launches)
        << shape;
  }
  EXPECT_GT(launches[1], launches[0]);  // LSTM over vanilla
  EXPECT_GT(launches[2], launches[1]);  // GRU over LSTM
  // Forward only launches fewer.
  Outcome o = RunKernelBinary({"--model", "rnn", "--kernel-shape", "gru-h16-b4-t6-fwd",
                   "--minibatches", "2"});
  const double gru_fwd = ExpectKernelRun(o, "rnn", 2).launches();
  EXPECT_LT(gru_fwd, launches[2]);
  EXPECT_DOUBLE_EQ(
      gru_fwd, KernelCostOf(*ParseKernelShape("rnn", "gru-h16-b4-t6-fwd")).launches);
}

TEST(KernelBinaryTest, AShapeTooBigForMemoryFailsBeforeAllocating) {
  // 300000 x 300000 floats: 360 GB.
  Outcome o = RunKernelBinary({"--model", "gemm", "--kernel-shape", "m300000-n300000-k1",
                   "--minibatches", "1"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("needs 360.0"));
  EXPECT_THAT(o.err, HasSubstr("GB of memory are available"));
  EXPECT_TRUE(o.events.empty());
}

TEST(KernelBinaryTest, BadKernelFlagsExitTwoNamingTheFlag) {
  Outcome o = RunKernelBinary({"--model", "conv", "--minibatches", "1"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--kernel-shape: required for kernel conv"));
  o = RunKernelBinary({"--model", "conv", "--kernel-shape", "n1-c1-h2-w2-k1-r3-s3",
           "--minibatches", "1"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--kernel-shape: conv shape"));
  EXPECT_THAT(o.err, HasSubstr("does not fit"));
  o = RunKernelBinary({"--model", "gemm", "--kernel-shape", "m1-n1-k1", "--epochs", "1"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--epochs: a kernel run has no data set"));
  o = RunKernelBinary({"--model", "lenet5", "--kernel-shape", "m1-n1-k1",
           "--minibatches", "1"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--kernel-shape: applies to kernels"));
}

}  // namespace
}  // namespace powersweep
