// seq2seq, seq2seq_lstm and memnet (Fathom's encoder-decoder with
// attention, with GRU or LSTM cells, and its end-to-end memory network):
// their shapes and option checks, the describe
// figures by hand from the layers, greedy decoding against the
// teacher-forced pass, and that training lowers their loss on generated
// data through the real loader and training step.
#include <torch/torch.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/models/model.h"
#include "workloads/models/seq2seq.h"
#include "workloads/pipeline/loader.h"
#include "workloads/runner/step.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

TEST(Seq2SeqMemNetTest, ShapesComeFromSeqLenAndVocab) {
  absl::StatusOr<ResolvedModel> r;
  for (const char* model : {"seq2seq", "seq2seq_lstm"}) {
    r = ResolveModelOptions(model, {});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->seq_len, 30) << model;
    EXPECT_EQ(r->vocab, 40000) << model;
    EXPECT_EQ(r->input_shape, (std::array<int64_t, 3>{1, 1, 30})) << model;
  }
  r = ResolveModelOptions("memnet", {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seq_len, 8);
  EXPECT_EQ(r->vocab, 23);
  EXPECT_EQ(r->input_shape, (std::array<int64_t, 3>{1, 1, 51 * 8}));
  ModelOptions o;
  o.seq_len = 12;
  o.vocab = 100;
  r = ResolveModelOptions("memnet", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->input_shape[2], 51 * 12);
  EXPECT_EQ(r->num_classes, 100);
}

TEST(Seq2SeqMemNetTest, BadOptionsNameTheFlag) {
  struct Case {
    std::string model;
    ModelOptions options;
    std::string flag;
  };
  std::vector<Case> cases(6);
  cases[0] = {"memnet", {}, "--seq-len"};
  cases[0].options.seq_len = 65;
  cases[1] = {"seq2seq", {}, "--seq-len"};
  cases[1].options.seq_len = 1025;
  cases[2] = {"seq2seq", {}, "--vocab"};
  cases[2].options.vocab = 3;
  cases[3] = {"memnet", {}, "--input-size"};
  cases[3].options.input_size = 28;
  cases[4] = {"seq2seq", {}, "--gen-tokens"};
  cases[4].options.gen_tokens = 4;
  cases[5] = {"seq2seq_lstm", {}, "--seq-len"};
  cases[5].options.seq_len = 1025;
  for (const Case& c : cases) {
    absl::StatusOr<ResolvedModel> r = ResolveModelOptions(c.model, c.options);
    ASSERT_FALSE(r.ok()) << c.model << " " << c.flag;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(r.status().message()),
                ::testing::StartsWith(c.flag));
  }
}

TEST(Seq2SeqMemNetTest, DescribeGivesTheLayerCountedFigures) {
  ModelOptions o;
  o.vocab = 1000;
  o.seq_len = 20;
  absl::StatusOr<ModelDescription> d = DescribeModel("seq2seq", o);
  ASSERT_TRUE(d.ok()) << d.status();
  const int64_t v = 1000, l = 20, e = 256, h = 512;
  const int64_t gru = 3 * h * (e + h) + 3 * h * (2 * h) + 4 * 3 * h;
  EXPECT_EQ(d->params, 2 * v * e + 2 * gru + h * h + 2 * h * h + h * v + v);
  EXPECT_EQ(d->forward_macs, 2 * l * (3 * h * (e + h) + 3 * h * 2 * h) +
                                 l * h * h + 2 * l * l * h + l * 2 * h * h +
                                 l * h * v);
  EXPECT_THAT(FormatModelDescription(*d), HasSubstr("sequence length 20"));
  // LSTM cells: four gates to the GRU's three, each with torch's two biases.
  d = DescribeModel("seq2seq_lstm", o);
  ASSERT_TRUE(d.ok()) << d.status();
  const int64_t lstm = 4 * h * (e + h) + 4 * h * (2 * h) + 4 * 4 * h;
  EXPECT_EQ(d->params, 2 * v * e + 2 * lstm + h * h + 2 * h * h + h * v + v);
  EXPECT_EQ(d->forward_macs, 2 * l * (4 * h * (e + h) + 4 * h * 2 * h) +
                                 l * h * h + 2 * l * l * h + l * 2 * h * h +
                                 l * h * v);
  o.seq_len = 8;
  o.vocab = 0;
  d = DescribeModel("memnet", o);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params, 4 * 23 * 20 + 4 * 50 * 20);
  EXPECT_EQ(d->forward_macs, 3 * 2 * 50 * 20 + 20 * 23);
  EXPECT_THAT(FormatModelDescription(*d),
              HasSubstr("408 token ids (51 sentences of 8 words"));
}

class Seq2SeqCellTest : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqCellTest, GreedyDecodingStartsAsTheTeacherForcedPass) {
  ModelOptions o;
  o.vocab = 50;
  o.seq_len = 6;
  torch::manual_seed(4);
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(GetParam(), o);
  ASSERT_TRUE(m.ok()) << m.status();
  auto& model = dynamic_cast<Seq2Seq&>(**m);
  model.eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor x = model.SyntheticBatch(3).first;
  const torch::Tensor forced = model.forward(x);
  const torch::Tensor greedy = model.Greedy(x);
  ASSERT_EQ(greedy.sizes(), forced.sizes());
  EXPECT_EQ(greedy.sizes(), (std::vector<int64_t>{3, 6, 50}));
  // Both read <eos> first from the encoder's state.
  EXPECT_TRUE(torch::allclose(greedy.select(1, 0), forced.select(1, 0),
                              1e-5, 1e-5));
  // The target is the source reversed.
  const torch::Tensor target = model.Target(x);
  EXPECT_EQ(target[0][0].item<int64_t>(),
            static_cast<int64_t>(x.reshape({3, -1})[0][5].item<float>()));
  // Later steps differ: greedy reads its own choices, not the target.
  EXPECT_FALSE(torch::allclose(greedy, forced, 1e-5, 1e-5));
  // The inference step decodes seq_len tokens per sample.
  std::unique_ptr<Step> step = MakeStep(v1::TASK_INFER, *m);
  Minibatch mb;
  mb.samples = 3;
  mb.images = x;
  mb.labels = torch::zeros({3}, torch::kLong);
  const StepResult r = step->Run(mb);
  EXPECT_EQ(r.tokens, 3 * 6);
  EXPECT_GT(r.loss, 0);
}

// Losses of `steps` training minibatches of `model` on the set in `dir`.
std::vector<double> Train(const std::string& dir, const std::string& model,
                          int64_t seq_len, int64_t batch, int steps) {
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
  torch::manual_seed(7);
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
    const StepResult r = step->Run(*mb);
    // seq2seq: seq_len per sample; memnet: 51 sentences of seq_len words.
    EXPECT_EQ(r.tokens, mb->samples * shape->input_shape[2]);
    losses.push_back(r.loss);
  }
  std::cout << model << " losses:";
  for (double l : losses) std::cout << " " << l;
  std::cout << "\n";
  return losses;
}

double Mean(const std::vector<double>& v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / (to - from);
}

TEST_P(Seq2SeqCellTest, LossFallsOnAWikipediaShapedSet) {
  testing::TempDir dir;
  GenerateOptions g;
  g.format = "text";
  g.out_dir = dir.path() + "/wiki";
  g.train_count = 20000;
  g.test_count = 1000;
  g.vocab = 64;
  ASSERT_TRUE(GenerateDataset(g, {}).ok());
  // Reversing windows of 6 tokens of a 64-token vocabulary; Adam moves
  // the loss from about ln(64) = 4.2 (uniform guesses) down, first
  // towards the corpus's Zipf unigram entropy (the torch.nn reference at
  // windows of 8 and batches of 16: 4.16 -> 2.8 in 40 steps).
  const std::vector<double> losses = Train(g.out_dir, GetParam(), 6, 8, 30);
  ASSERT_EQ(losses.size(), 30u);
  EXPECT_NEAR(losses.front(), std::log(64.0), 0.3);
  EXPECT_LT(Mean(losses, 25, 30), losses.front() - 0.5);
}

INSTANTIATE_TEST_SUITE_P(Cells, Seq2SeqCellTest,
                         ::testing::Values("seq2seq", "seq2seq_lstm"));

TEST(Seq2SeqMemNetTest, MemNetLossFallsOnAGeneratedBabiSet) {
  testing::TempDir dir;
  GenerateOptions g;
  g.format = "babi";
  g.out_dir = dir.path() + "/babi";
  g.train_count = 1000;
  g.test_count = 100;
  ASSERT_TRUE(GenerateDataset(g, {}).ok());
  // Answers are 6 of the 23 tokens: with SGD (lr 0.01, momentum 0.9) the
  // loss falls from about ln(23) = 3.1 towards ln(6) = 1.8 in 150
  // minibatches of 32 as the network learns which words are places
  // (the torch.nn reference under the same recipe: 1.8 after 155, and the
  // task itself, 99.8% of the training answers, after 40 epochs).
  const std::vector<double> losses = Train(g.out_dir, "memnet", 8, 32, 150);
  ASSERT_EQ(losses.size(), 150u);
  EXPECT_NEAR(losses.front(), std::log(23.0), 0.3);
  EXPECT_LT(Mean(losses, 145, 150), losses.front() - 0.9);
}

}  // namespace
}  // namespace powersweep
