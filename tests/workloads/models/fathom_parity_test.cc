// vae, dqn, gpt2_small, seq2seq, seq2seq_lstm and memnet against references
// built from torch.nn modules
// (fathom_reference.py beside this file, run with /usr/bin/python3): the
// parameter names and shapes (gpt2_small's are HuggingFace
// GPT2LMHeadModel's), the parameter counts, the forward MACs and the
// eval-mode outputs with the same weights on the same input. Fails (does
// not skip) without torch there.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "gtest/gtest.h"
#include "workloads/models/model.h"
#include "workloads/models/state_export.h"
#include "workloads/models/token_generator.h"

namespace powersweep {
namespace {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

// Writes the case fathom_reference.py reads (see its docstring).
void WriteCase(const std::string& name, const ModelOptions& options,
               const std::string& dir) {
  torch::manual_seed(20261127);
  absl::StatusOr<std::shared_ptr<Model>> built = MakeModel(name, options);
  ASSERT_TRUE(built.ok()) << built.status();
  Model& model = **built;
  absl::StatusOr<ModelDescription> d = DescribeBuiltModel(model);
  ASSERT_TRUE(d.ok()) << d.status();
  model.eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor input = model.SyntheticBatch(2).first;
  const torch::Tensor output = model.forward(input);
  ASSERT_TRUE(ExportModuleState(model, dir + "/state").ok());
  ASSERT_TRUE(WriteNpy(input, dir + "/input.npy").ok());
  ASSERT_TRUE(WriteNpy(output, dir + "/output.npy").ok());
  std::ofstream meta(dir + "/meta.txt");
  meta << "model " << d->name << "\n"
       << "channels " << d->input_shape[0] << "\n"
       << "height " << d->input_shape[1] << "\n"
       << "width " << d->input_shape[2] << "\n"
       << "classes " << d->num_classes << "\n"
       << "seq_len " << d->seq_len << "\n"
       << "params " << d->params << "\n"
       << "forward_macs " << d->forward_macs << "\n";
}

class FathomParityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "fathom_parity_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_P(FathomParityTest, MatchesItsTorchNnReference) {
  ModelOptions options;
  // A short sequence keeps gpt2_small's case quick; the weights are the
  // full model's either way.
  if (GetParam() == "gpt2_small") options.seq_len = 32;
  // seq2seq (GRU and LSTM) at a small vocabulary keeps the case small (the
  // layers are the full model's); memnet at its defaults.
  if (GetParam() == "seq2seq" || GetParam() == "seq2seq_lstm") {
    options.seq_len = 12;
    options.vocab = 300;
  }
  WriteCase(GetParam(), options, dir_);
  if (HasFatalFailure()) return;
  const std::string script = std::string(POWERSWEEP_SOURCE_DIR) +
                             "/tests/workloads/models/fathom_reference.py";
  const CommandResult r =
      RunCommand(std::string("/usr/bin/python3 ") + script + " " + dir_);
  std::cout << r.output;
  ASSERT_NE(r.exit_code, 3) << "/usr/bin/python3 lacks torch: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Models, FathomParityTest,
    ::testing::Values("dqn", "gpt2_small", "memnet", "seq2seq", "seq2seq_lstm",
                      "vae"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return info.param;
    });

}  // namespace
}  // namespace powersweep
