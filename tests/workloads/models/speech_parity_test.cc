// deepspeech2 against a reference built from torch.nn modules
// (speech_reference.py beside this file, run with /usr/bin/python3): the
// parameter and buffer names and shapes, the parameter count, the forward
// MACs, and the eval-mode logits and CTC loss with the same weights on the
// same input. Fails (does not skip) without torch there.
#include <stdio.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>

#include "gtest/gtest.h"
#include "workloads/models/deepspeech2.h"
#include "workloads/models/model.h"
#include "workloads/models/state_export.h"

namespace powersweep {
namespace {

struct ShellResult {
  int exit_code = -1;
  std::string output;
};

ShellResult RunShell(const std::string& command) {
  ShellResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

class SpeechParityTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "speech_parity_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_P(SpeechParityTest, MatchesItsTorchNnReference) {
  torch::manual_seed(20261127);
  ModelOptions options;
  options.seq_len = GetParam();
  absl::StatusOr<std::shared_ptr<Model>> built =
      MakeModel("deepspeech2", options);
  ASSERT_TRUE(built.ok()) << built.status();
  Model& model = **built;
  absl::StatusOr<ModelDescription> d = DescribeBuiltModel(model);
  ASSERT_TRUE(d.ok()) << d.status();
  model.eval();
  torch::NoGradGuard no_grad;
  const auto [input, labels] = model.SyntheticBatch(3);
  const torch::Tensor output = model.forward(input);
  const double loss = model.Loss(input, labels).item<double>();
  ASSERT_TRUE(ExportModuleState(model, dir_ + "/state").ok());
  ASSERT_TRUE(WriteNpy(input, dir_ + "/input.npy").ok());
  ASSERT_TRUE(WriteNpy(output, dir_ + "/output.npy").ok());
  std::ofstream(dir_ + "/loss.txt") << std::setprecision(17) << loss;
  std::ofstream meta(dir_ + "/meta.txt");
  meta << "model " << d->name << "\n"
       << "channels " << d->input_shape[0] << "\n"
       << "height " << d->input_shape[1] << "\n"
       << "width " << d->input_shape[2] << "\n"
       << "classes " << d->num_classes << "\n"
       << "seq_len " << d->seq_len << "\n"
       << "params " << d->params << "\n"
       << "forward_macs " << d->forward_macs << "\n";
  meta.close();
  const std::string script = std::string(POWERSWEEP_SOURCE_DIR) +
                             "/tests/workloads/models/speech_reference.py";
  const ShellResult r = RunShell("/usr/bin/python3 " + script + " " + dir_);
  std::cout << r.output;
  ASSERT_NE(r.exit_code, 3) << "/usr/bin/python3 lacks torch: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The default window and a short odd one (ceil(frames / 2) output frames).
INSTANTIATE_TEST_SUITE_P(Frames, SpeechParityTest,
                         ::testing::Values(int64_t{256}, int64_t{65}));

}  // namespace
}  // namespace powersweep
