// The sequence models (lstm_lm, mobilebert): their shape options, their
// counts, parity with the PyTorch references in text_parity.py (run under
// /usr/bin/python3), and training on the real WordNet corpus through the
// real loader and training step.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/data/dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/models/model.h"
#include "workloads/models/parity_case.h"
#include "workloads/pipeline/loader.h"
#include "workloads/runner/step.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class TempDirectory {
 public:
  TempDirectory() {
    std::string templ = ::testing::TempDir() + "text_models_XXXXXX";
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~TempDirectory() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(TextModelsTest, ShapesComeFromSeqLenAndVocab) {
  absl::StatusOr<std::shared_ptr<Model>> lm = MakeModel("lstm_lm");
  ASSERT_TRUE(lm.ok()) << lm.status();
  EXPECT_EQ((*lm)->input_shape(), (std::array<int64_t, 3>{1, 1, 36}));
  EXPECT_EQ((*lm)->vocab(), 33278);
  EXPECT_EQ((*lm)->num_classes(), 33278);
  ModelOptions o;
  o.seq_len = 64;
  o.vocab = 500;
  absl::StatusOr<std::shared_ptr<Model>> bert = MakeModel("mobilebert", o);
  ASSERT_TRUE(bert.ok()) << bert.status();
  EXPECT_EQ((*bert)->input_shape(), (std::array<int64_t, 3>{1, 1, 64}));
  (*bert)->eval();
  torch::NoGradGuard no_grad;
  torch::Tensor y = (*bert)->forward((*bert)->SyntheticBatch(3).first);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{3, 64, 500}));
  auto [x, labels] = (*lm)->SyntheticBatch(4);
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{4, 1, 1, 36}));
  EXPECT_GE(x.min().item<float>(), 0);
  EXPECT_LT(x.max().item<float>(), 33278);
  EXPECT_TRUE(torch::equal(x, x.round()));
}

TEST(TextModelsTest, BadOptionsNameTheFlag) {
  auto error = [](const std::string& model, ModelOptions o) {
    absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(model, o);
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(m.status().message());
  };
  ModelOptions o;
  o.seq_len = 513;
  EXPECT_THAT(error("mobilebert", o),
              HasSubstr("--seq-len: 513 does not fit mobilebert (1 to 512"));
  o = {};
  o.vocab = 3;
  EXPECT_THAT(error("lstm_lm", o), HasSubstr("--vocab: 3 does not fit"));
  o.vocab = (int64_t{1} << 24) + 1;
  EXPECT_THAT(error("lstm_lm", o), HasSubstr("--vocab"));
  o = {};
  o.input_size = 32;
  EXPECT_THAT(error("lstm_lm", o), HasSubstr("--input-size"));
  o = {};
  o.seq_len = 35;
  EXPECT_THAT(error("resnet18", o),
              HasSubstr("--seq-len: resnet18 takes images"));
}

TEST(TextModelsTest, DescribeCountsParametersAndMacsOfTheLayers) {
  ModelOptions o;
  o.vocab = 10000;
  absl::StatusOr<ModelDescription> d = DescribeModel("lstm_lm", o);
  ASSERT_TRUE(d.ok()) << d.status();
  // encoder 10000 x 200; per LSTM layer 4 x 200 x (200 + 200) weights and
  // 2 x 800 biases; decoder 200 x 10000 + 10000.
  const int64_t lstm = 4 * 200 * 400 + 1600;
  EXPECT_EQ(d->params, 10000 * 200 + 2 * lstm + 200 * 10000 + 10000);
  // Per token: 2 layers x 4 x 200 x 400 gates + 200 x 10000 decoder.
  EXPECT_EQ(d->forward_macs, 35 * (2 * 4 * 200 * 400 + 200 * 10000));
  const std::string text = FormatModelDescription(*d);
  EXPECT_THAT(text, HasSubstr("36 token ids (sequence length 35 + 1 target)"));
  EXPECT_THAT(text, HasSubstr("vocabulary   10000 tokens"));

  absl::StatusOr<ModelDescription> b = DescribeModel("mobilebert", {});
  ASSERT_TRUE(b.ok()) << b.status();
  // By hand, per layer: two bottlenecks (512x128 + 128, NoNorm 256) each,
  // query and key 128x128 + 128, value 512x128 + 128, attention output
  // 128x128 + 128 + 256, four FFNs of 128x512 + 512 and 512x128 + 128 +
  // 256, and the output bottleneck 128x512 + 512 + 1024.
  const int64_t layer = 2 * (512 * 128 + 128 + 256) + 2 * (128 * 128 + 128) +
                        (512 * 128 + 128) + (128 * 128 + 128 + 256) +
                        4 * (128 * 512 + 512 + 512 * 128 + 128 + 256) +
                        (128 * 512 + 512 + 1024);
  // Embeddings: word 30522x128, positions 512x512, types 2x512, the
  // 384->512 transformation and NoNorm; the head: 512x512 + 512, LayerNorm,
  // its own 384 decoder rows x 30522 and the bias.
  const int64_t v = 30522;
  EXPECT_EQ(b->params, 24 * layer + v * 128 + 512 * 512 + 2 * 512 +
                           384 * 512 + 512 + 1024 + 512 * 512 + 512 + 1024 +
                           384 * v + v);
  EXPECT_NEAR(b->params / 1e6, 36.6, 0.05);
  // MACs per token: the layers' Linear weights, attention's 2 x 128 x 128
  // (QK^T and PV at seq_len 128), the transformation, the head.
  const int64_t layer_macs =
      2 * 512 * 128 + 2 * 128 * 128 + 512 * 128 + 128 * 128 +
      4 * (2 * 128 * 512) + 128 * 512 + 2 * 128 * 128;
  EXPECT_EQ(b->forward_macs,
            128 * (24 * layer_macs + 384 * 512 + 512 * 512 + 512 * v));
}

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

TEST(TextModelsTest, MatchThePyTorchReferences) {
  TempDirectory dir;
  ParityCase lm;
  lm.model = "lstm_lm";
  lm.options.vocab = 1000;
  lm.seed = 20261127;
  ParityCase bert;
  bert.model = "mobilebert";
  bert.options.vocab = 1000;
  bert.options.seq_len = 24;
  bert.seed = 20261127;
  for (const ParityCase* c : {&lm, &bert}) {
    absl::StatusOr<ModelDescription> d =
        WriteParityCase(*c, dir.path() + "/" + c->model);
    ASSERT_TRUE(d.ok()) << d.status();
  }
  const std::string script = std::string(POWERSWEEP_SOURCE_DIR) +
                             "/tests/workloads/models/text_parity.py";
  const CommandResult r =
      RunCommand("/usr/bin/python3 " + script + " " + dir.path() +
                 "/lstm_lm " + dir.path() + "/mobilebert");
  std::cout << r.output;
  ASSERT_NE(r.exit_code, 3) << "/usr/bin/python3 lacks torch "
                            << "(install python3-torch): " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// Trains `model` for `steps` minibatches of the WordNet corpus through the
// loader and the real training step; returns the losses.
std::vector<double> TrainOnWordNet(const std::string& dir,
                                   const std::string& model, int64_t seq_len,
                                   int64_t batch, int steps) {
  torch::manual_seed(7);
  ModelOptions mo;
  mo.seq_len = seq_len;
  absl::StatusOr<ResolvedModel> shape = ResolveModelOptions(model, mo);
  EXPECT_TRUE(shape.ok());
  DatasetOptions d;
  d.seq_len = shape->seq_len;
  d.sample_tokens = shape->input_shape[2];
  absl::StatusOr<std::unique_ptr<Dataset>> set = OpenDataset(dir, d);
  EXPECT_TRUE(set.ok()) << set.status();
  if (!set.ok()) return {};
  mo.vocab = (*set)->num_classes();
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(model, mo);
  EXPECT_TRUE(m.ok()) << m.status();
  LoaderOptions lo;
  lo.batch_size = batch;
  lo.workers = 1;
  lo.seed = 3;
  absl::StatusOr<std::unique_ptr<Loader>> loader =
      Loader::Create(set->get(), lo);
  EXPECT_TRUE(loader.ok());
  std::unique_ptr<Step> step = MakeStep(v1::TASK_TRAIN, *m);
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    absl::StatusOr<Minibatch> mb = (*loader)->Next();
    EXPECT_TRUE(mb.ok()) << mb.status();
    if (!mb.ok()) break;
    losses.push_back(step->Run(*mb).loss);
  }
  return losses;
}

double Mean(const std::vector<double>& v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / (to - from);
}

TEST(TextModelsTest, LossFallsOnTheWordNetGlosses) {
  TempDirectory dir;
  GenerateOptions g;
  g.format = "text";
  g.out_dir = dir.path() + "/wordnet";
  g.wordnet_dir = "/usr/share/wordnet";
  g.vocab = 2000;
  absl::Status st = GenerateDataset(g, {});
  ASSERT_TRUE(st.ok()) << st << " (install Debian's wordnet-base)";
  // lstm_lm: 40 minibatches of 16 windows; SGD (lr 0.01, momentum 0.9)
  // moves it from about ln(2000) = 7.6 (uniform guesses) towards the
  // glosses' unigram entropy (on this machine: 7.61 -> 7.31).
  const std::vector<double> lm = TrainOnWordNet(g.out_dir, "lstm_lm", 35, 16, 40);
  ASSERT_EQ(lm.size(), 40u);
  std::cout << "lstm_lm losses:";
  for (double l : lm) std::cout << " " << l;
  std::cout << "\n";
  EXPECT_NEAR(lm.front(), std::log(2000.0), 0.2);
  EXPECT_LT(Mean(lm, 35, 40), lm.front() - 0.2);
  EXPECT_LT(Mean(lm, 35, 40), Mean(lm, 0, 5));
  // mobilebert trains through the same loader and step (its masked-LM
  // loss starts near ln(2000); a falling loss takes more steps than a unit
  // test can afford on a CPU).
  const std::vector<double> bert =
      TrainOnWordNet(g.out_dir, "mobilebert", 16, 4, 3);
  ASSERT_EQ(bert.size(), 3u);
  // A few masked positions per minibatch: a noisy mean around ln(2000).
  for (double l : bert) {
    EXPECT_GT(l, std::log(2000.0) - 2.5);
    EXPECT_LT(l, std::log(2000.0) + 1.0);
  }
}

}  // namespace
}  // namespace powersweep
