// Builds each model at its study shape, writes its weights, an input and
// its output (WriteParityCase), and runs torchvision_parity.py beside this
// file with /usr/bin/python3, which compares state_dict keys and shapes,
// parameter counts, forward MACs and the eval-mode output with
// torchvision 0.14's network. Fails (does not skip) without torch there.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "common/text_models.h"
#include "workloads/models/catalog.h"
#include "workloads/models/parity_case.h"

namespace powersweep {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

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

class TorchvisionParityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string templ = ::testing::TempDir() + "parity_XXXXXX";
    ASSERT_NE(mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_P(TorchvisionParityTest, MatchesTorchvisionAtTheStudyShape) {
  ParityCase c;
  c.model = GetParam();
  c.seed = 20261122;
  absl::StatusOr<ModelDescription> d = WriteParityCase(c, dir_ + "/case");
  ASSERT_TRUE(d.ok()) << d.status();

  const std::string script = std::string(POWERSWEEP_SOURCE_DIR) +
                             "/tests/workloads/models/torchvision_parity.py";
  const CommandResult r =
      RunCommand(std::string(kPython) + " " + script + " " + dir_ + "/case");
  std::cout << r.output;
  ASSERT_NE(r.exit_code, 3) << kPython << " lacks torch or torchvision "
                            << "(install python3-torch python3-torchvision): "
                            << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The torchvision (and LeNet-5) models; fathom_parity_test.cc checks dqn,
// gpt2_small, vae, seq2seq, seq2seq_lstm and memnet, text_models_test.cc
// lstm_lm and mobilebert, speech_parity_test.cc deepspeech2, against their
// torch.nn references.
std::vector<std::string> TorchvisionModels() {
  std::vector<std::string> names;
  for (const std::string& m : KnownModels()) {
    if (m != "dqn" && m != "gpt2_small" && m != "vae" && m != "deepspeech2" &&
        FindTextModel(m) == nullptr) {
      names.push_back(m);
    }
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(
    Models, TorchvisionParityTest, ::testing::ValuesIn(TorchvisionModels()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return info.param;
    });

}  // namespace
}  // namespace powersweep
