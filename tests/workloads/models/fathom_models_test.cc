// The Fathom models and GPT-2 small (vae, dqn, gpt2_small): their shapes,
// describe figures, option checks, that training lowers their loss, and
// that gpt2_small's KV-cache generation gives the logits of a full
// forward pass.
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/data/dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/frames_format.h"
#include "workloads/models/catalog.h"
#include "workloads/models/describe.h"
#include "workloads/models/dqn.h"
#include "workloads/models/gpt2.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/minibatch.h"
#include "workloads/runner/step.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kFashionMnist[] = "/usr/share/datasets/fashion-mnist";

std::shared_ptr<Model> Build(const std::string& name,
                             const ModelOptions& o = {}) {
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(name, o);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : nullptr;
}

// The first `n` samples of `set` as one minibatch.
Minibatch FirstSamples(const Dataset& set, int64_t n) {
  std::vector<int32_t> indices(n);
  for (int64_t i = 0; i < n; ++i) indices[i] = static_cast<int32_t>(i);
  absl::StatusOr<Minibatch> mb =
      BuildMinibatch(set, indices.data(), n, /*seed=*/1, 0, 0);
  EXPECT_TRUE(mb.ok()) << mb.status();
  return mb.ok() ? *mb : Minibatch{};
}

// Loss of the first and of the last of `steps` training steps on `mb`.
std::pair<double, double> TrainRepeatedly(std::shared_ptr<Model> model,
                                          const Minibatch& mb, int steps) {
  std::unique_ptr<Step> step = MakeStep(v1::TASK_TRAIN, model);
  double first = 0, last = 0;
  for (int i = 0; i < steps; ++i) {
    last = step->Run(mb).loss;
    if (i == 0) first = last;
  }
  return {first, last};
}

TEST(FathomModelsTest, DescribeGivesTheLayerCountedFigures) {
  // By hand from the layers (see the model headers).
  struct Want {
    std::string name;
    int64_t params;
    int64_t macs;
  };
  const int64_t gpt2_layer_macs =
      128 * (768 * 2304 + 768 * 768 + 2 * 768 * 3072);
  const Want wants[] = {
      {"vae", 2 * (784 * 200 + 200) + 200 * 784 + 784, 3 * 784 * 200},
      {"dqn",
       (4 * 64 * 32 + 32) + (32 * 16 * 64 + 64) + (64 * 9 * 64 + 64) +
           (3136 * 512 + 512) + (512 * 3 + 3),
       20 * 20 * 32 * 4 * 64 + 9 * 9 * 64 * 32 * 16 + 7 * 7 * 64 * 64 * 9 +
           3136 * 512 + 512 * 3},
      {"gpt2_small", 124439808,
       12 * gpt2_layer_macs + int64_t{128} * 768 * 50257},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.name);
    absl::StatusOr<ModelDescription> d = DescribeModel(w.name, {});
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->params, w.params);
    EXPECT_EQ(d->trainable_params, w.params);
    EXPECT_EQ(d->forward_macs, w.macs);
  }
}

TEST(FathomModelsTest, Gpt2DescriptionShowsTheSequenceNotAnImage) {
  absl::StatusOr<ModelDescription> d =
      DescribeModel("gpt2_small", {0, 0, /*seq_len=*/64, /*gen_tokens=*/8});
  ASSERT_TRUE(d.ok()) << d.status();
  const std::string text = FormatModelDescription(*d);
  EXPECT_THAT(text, HasSubstr("input        65 token ids (sequence length "
                              "64 + 1 target), 8 generated in inference"));
  EXPECT_THAT(text, HasSubstr("vocabulary   50257 tokens"));
  EXPECT_THAT(text, HasSubstr("124,439,808"));
}

TEST(FathomModelsTest, SequenceOptionsAreCheckedNamingTheFlag) {
  auto error = [](const std::string& model, const ModelOptions& o) {
    return std::string(ResolveModelOptions(model, o).status().message());
  };
  EXPECT_THAT(error("gpt2_small", {0, 0, 1024, 0}), StartsWith("--seq-len:"));
  EXPECT_THAT(error("gpt2_small", {0, 0, -1, 0}), StartsWith("--seq-len:"));
  EXPECT_THAT(error("gpt2_small", {0, 0, 1000, 25}),
              StartsWith("--gen-tokens:"));
  EXPECT_THAT(error("gpt2_small", {0, 0, 0, -3}), StartsWith("--gen-tokens:"));
  EXPECT_THAT(error("gpt2_small", {0, 64, 0, 0}), StartsWith("--input-size:"));
  EXPECT_THAT(error("gpt2_small", {10, 0, 0, 0}), StartsWith("--classes:"));
  EXPECT_THAT(error("resnet18", {0, 0, 128, 0}), StartsWith("--seq-len:"));
  EXPECT_THAT(error("vae", {0, 0, 0, 4}), StartsWith("--gen-tokens:"));
  EXPECT_THAT(error("dqn", {0, 64, 0, 0}), StartsWith("--input-size:"));
  // gpt2_small's vocabulary is fixed; the text models do not generate.
  EXPECT_THAT(error("gpt2_small", {0, 0, 0, 0, /*vocab=*/30522}),
              StartsWith("--vocab: gpt2_small's vocabulary is fixed at 50257"));
  EXPECT_TRUE(ResolveModelOptions("gpt2_small", {0, 0, 0, 0, 50257}).ok());
  EXPECT_THAT(error("mobilebert", {0, 0, 64, 8}),
              StartsWith("--gen-tokens: mobilebert does not generate"));
  absl::StatusOr<ResolvedModel> r =
      ResolveModelOptions("gpt2_small", {0, 0, 1000, 24});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->input_shape, (std::array<int64_t, 3>{1, 1, 1001}));
}

TEST(FathomModelsTest, SyntheticBatchesAreValidInputs) {
  torch::manual_seed(3);
  std::shared_ptr<Model> gpt2 = Build("gpt2_small", {0, 0, 16, 2});
  auto [tokens, unused] = gpt2->SyntheticBatch(4);
  EXPECT_EQ(tokens.sizes(), (std::vector<int64_t>{4, 1, 1, 17}));
  EXPECT_GE(tokens.min().item<float>(), 0);
  EXPECT_LE(tokens.max().item<float>(), 50256);
  EXPECT_TRUE(torch::equal(tokens, tokens.round()));

  std::shared_ptr<Model> dqn = Build("dqn");
  auto [frames, codes] = dqn->SyntheticBatch(4);
  EXPECT_EQ(frames.sizes(), (std::vector<int64_t>{4, 5, 84, 84}));
  EXPECT_GE(frames.min().item<float>(), 0);
  EXPECT_LE(frames.max().item<float>(), 1);
  EXPECT_LT(codes.max().item<int64_t>(), 6 * 3);
  // The synthetic batch trains (a finite loss).
  EXPECT_TRUE(std::isfinite(
      MakeStep(v1::TASK_TRAIN, dqn)->Run({0, 0, 4, frames, codes}).loss));
}

TEST(FathomModelsTest, VaeElboFallsOnFashionMnist) {
  DatasetOptions o;
  o.split = Split::kTrain;
  absl::StatusOr<std::unique_ptr<Dataset>> set = OpenDataset(kFashionMnist, o);
  ASSERT_TRUE(set.ok()) << set.status();
  torch::manual_seed(1);
  const Minibatch mb = FirstSamples(**set, 64);
  auto [first, last] = TrainRepeatedly(Build("vae"), mb, 20);
  std::cout << "vae negative ELBO: " << first << " -> " << last << "\n";
  // 784 pixels' cross-entropy starts near 784 x ln 2 = 543 nats.
  EXPECT_GT(first, 300);
  EXPECT_LT(last, 0.8 * first);
}

TEST(FathomModelsTest, DqnQLossFallsOnTheGeneratedFrames) {
  const std::string dir = ::testing::TempDir() + "fathom_frames";
  std::filesystem::remove_all(dir);
  GenerateOptions g;
  g.format = "frames";
  g.out_dir = dir;
  g.train_count = 256;
  g.test_count = 8;
  g.seed = 5;
  ASSERT_TRUE(GenerateDataset(g, {}).ok());
  absl::StatusOr<std::unique_ptr<Dataset>> set = OpenDataset(dir, {});
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ((*set)->model_outputs(), 3);
  // A minibatch as prioritised replay would draw it: every episode end
  // (reward +1 or -1) of the first 256 transitions, the rest ordinary
  // steps, so the rewards (about 1 transition in 25) carry the loss.
  std::vector<int32_t> picked;
  for (int32_t i = 0; i < 256 && picked.size() < 16; ++i) {
    if (DecodeTransition((*set)->label(i), 3).done) picked.push_back(i);
  }
  ASSERT_GE(picked.size(), 5u);
  for (int32_t i = 0; picked.size() < 32; ++i) {
    if (!DecodeTransition((*set)->label(i), 3).done) picked.push_back(i);
  }
  absl::StatusOr<Minibatch> mb =
      BuildMinibatch(**set, picked.data(), 32, /*seed=*/1, 0, 0);
  ASSERT_TRUE(mb.ok()) << mb.status();
  torch::manual_seed(1);
  auto [first, last] =
      TrainRepeatedly(Build("dqn", {(*set)->model_outputs(), 0}), *mb, 40);
  std::cout << "dqn Huber TD loss: " << first << " -> " << last << "\n";
  EXPECT_GT(first, 0.05);
  EXPECT_LT(last, 0.7 * first);
  std::filesystem::remove_all(dir);
}

TEST(FathomModelsTest, Gpt2KvCacheGenerationMatchesAFullForwardPass) {
  torch::manual_seed(7);
  std::shared_ptr<Model> model = Build("gpt2_small", {0, 0, 12, 5});
  auto* gpt2 = dynamic_cast<Gpt2Small*>(model.get());
  ASSERT_NE(gpt2, nullptr);
  model->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor input = model->SyntheticBatch(2).first;
  torch::Tensor generated;
  std::vector<int64_t> seen;
  const torch::Tensor loss = gpt2->GenerateTimed(
      input, [&](int64_t i) { seen.push_back(i); }, &generated);
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(generated.sizes(), (std::vector<int64_t>{2, 5}));
  EXPECT_TRUE(std::isfinite(loss.item<double>()));

  // Without a cache: the prompt and the generated tokens in one pass.
  const torch::Tensor prompt =
      input.reshape({2, -1}).to(torch::kLong).slice(1, 0, 12);
  const torch::Tensor all = torch::cat({prompt, generated}, 1);
  const torch::Tensor full = gpt2->Logits(all);
  // The cached path, step by step, on the same tokens.
  KvCache cache;
  std::vector<torch::Tensor> cached = {gpt2->Logits(prompt, &cache)};
  for (int64_t i = 0; i + 1 < 5; ++i) {
    cached.push_back(gpt2->Logits(generated.slice(1, i, i + 1), &cache));
  }
  EXPECT_EQ(cache.positions(), 16);
  const torch::Tensor stepwise = torch::cat(cached, 1);
  ASSERT_EQ(stepwise.sizes(), full.slice(1, 0, 16).sizes());
  const double diff =
      (stepwise - full.slice(1, 0, 16)).abs().max().item<double>();
  const double scale = full.abs().max().item<double>();
  EXPECT_LE(diff, 1e-4 * scale) << "max |diff| " << diff;
  // Greedy: each generated token is the argmax of the full pass's logits
  // at the position before it.
  EXPECT_TRUE(torch::equal(
      full.slice(1, 11, 16).argmax(-1), generated));
}

TEST(FathomModelsTest, Gpt2InferenceStepReportsTokensAndLatencies) {
  torch::manual_seed(9);
  std::shared_ptr<Model> model = Build("gpt2_small", {0, 0, 8, 4});
  auto [input, labels] = model->SyntheticBatch(3);
  const Minibatch mb{0, 0, 3, input, labels};
  const StepResult infer = MakeStep(v1::TASK_INFER, model)->Run(mb);
  EXPECT_EQ(infer.tokens, 3 * 4);
  ASSERT_TRUE(infer.ttft_s.has_value());
  ASSERT_TRUE(infer.per_token_s.has_value());
  EXPECT_GT(*infer.ttft_s, 0);
  EXPECT_GT(*infer.per_token_s, 0);
  // A random model's next-token loss is near ln(50257) = 10.8.
  EXPECT_NEAR(infer.loss, 10.8, 1.0);
  const StepResult train = MakeStep(v1::TASK_TRAIN, model)->Run(mb);
  EXPECT_EQ(train.tokens, 3 * 8);
  EXPECT_FALSE(train.ttft_s.has_value());
}

}  // namespace
}  // namespace powersweep
