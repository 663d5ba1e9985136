// deepspeech2 (workloads/models/deepspeech2.h): its shape and describe
// figures, the option checks naming the flag, the greedy CTC decode, the
// synthetic batch, and that training lowers the CTC loss on real speech:
// a few utterances spoken by espeak-ng (gen-dataset --format speech; the
// build environment installs espeak-ng and wordnet-base, and the test fails
// without them) read through the speech reader.
#include <stdlib.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/data/dataset.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/models/deepspeech2.h"
#include "workloads/models/describe.h"
#include "workloads/models/model.h"
#include "workloads/pipeline/minibatch.h"
#include "workloads/runner/step.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Model> Build(const ModelOptions& o = {}) {
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel("deepspeech2", o);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : nullptr;
}

// Forward MACs at `frames` from the architecture (deepspeech2.h): conv1
// 32 x T' x 40 outputs of 11 x 41, conv2 32 x T' x 20 of 32 x 11 x 21, the
// GRU gates 2 directions x 3 x 256 x (input + 256) per output frame and
// layer (inputs 640, 512, 512), fc 29 x 512 per output frame.
int64_t ExpectedMacs(int64_t frames) {
  const int64_t t = (frames + 1) / 2;
  const int64_t conv = 32 * t * 40 * 11 * 41 + 32 * t * 20 * 32 * 11 * 21;
  const int64_t gru =
      t * 2 * 3 * 256 * ((640 + 256) + 2 * (512 + 256));
  return conv + gru + t * 29 * 512;
}

TEST(DeepSpeech2Test, DescribeCountsItsLayers) {
  absl::StatusOr<ModelDescription> d = DescribeModel("deepspeech2", {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params, 4010813);
  EXPECT_EQ(d->forward_macs, ExpectedMacs(256));
  EXPECT_EQ(d->input_shape, (std::array<int64_t, 3>{1, 257, 80}));
  EXPECT_EQ(d->num_classes, 29);
  EXPECT_EQ(d->seq_len, 256);
  EXPECT_EQ(d->vocab, 0);
  const std::string text = FormatModelDescription(*d);
  EXPECT_THAT(text, HasSubstr("256 frames of 80 log-mel bands"));
  EXPECT_THAT(text, HasSubstr("GRU gate"));
  std::cout << text;
  ModelOptions shorter;
  shorter.seq_len = 101;
  d = DescribeModel("deepspeech2", shorter);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params, 4010813);  // the window does not change the weights
  EXPECT_EQ(d->forward_macs, ExpectedMacs(101));
}

TEST(DeepSpeech2Test, OptionsThatDoNotFitNameTheFlag) {
  auto message = [](ModelOptions o) {
    return std::string(MakeModel("deepspeech2", o).status().message());
  };
  ModelOptions o;
  o.seq_len = 31;
  EXPECT_THAT(message(o), HasSubstr("--seq-len: 31 spectrogram frames"));
  o.seq_len = 3001;
  EXPECT_THAT(message(o), HasSubstr("32 to 3000 frames"));
  o = {};
  o.input_size = 224;
  EXPECT_THAT(message(o), HasSubstr("--input-size"));
  o = {};
  o.vocab = 100;
  EXPECT_THAT(message(o), HasSubstr("--vocab"));
  o = {};
  o.num_classes = 10;
  EXPECT_THAT(message(o), HasSubstr("--classes"));
  o = {};
  o.num_classes = 29;
  o.seq_len = 3000;
  EXPECT_TRUE(MakeModel("deepspeech2", o).ok());
}

TEST(DeepSpeech2Test, GreedyDecodeMergesRepeatsAndDropsBlanks) {
  // Frames: a a _ a b b _ _ (ids: a = 3, b = 4, blank 0), then padding.
  const std::vector<int64_t> best = {3, 3, 0, 3, 4, 4, 0, 0, 5, 5};
  torch::Tensor logits = torch::zeros({1, 10, 29});
  for (int64_t f = 0; f < 10; ++f) logits[0][f][best[f]] = 1.0;
  EXPECT_EQ(DeepSpeech2::GreedyDecode(logits, torch::tensor({8}))[0], "aab");
  EXPECT_EQ(DeepSpeech2::GreedyDecode(logits, torch::tensor({10}))[0], "aabc");
}

TEST(DeepSpeech2Test, SyntheticBatchCarriesFeasibleTranscripts) {
  torch::manual_seed(3);
  ModelOptions o;
  o.seq_len = 64;
  std::shared_ptr<Model> model = Build(o);
  ASSERT_NE(model, nullptr);
  const auto [x, labels] = model->SyntheticBatch(5);
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{5, 1, 65, 80}));
  const torch::Tensor row = x.select(1, 0).select(1, 64);
  for (int64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(row[i][0].item<float>(), 64);
    const int64_t chars = row[i][1].item<int64_t>();
    EXPECT_GE(chars, 1);
    EXPECT_LE(chars, 8);  // frames / 8
    for (int64_t c = 0; c < chars; ++c) {
      EXPECT_GE(row[i][2 + c].item<int64_t>(), 1);
      EXPECT_LE(row[i][2 + c].item<int64_t>(), 28);
    }
    EXPECT_EQ(row[i][2 + chars].item<float>(), 0);
  }
  model->eval();
  torch::NoGradGuard no_grad;
  const double loss = model->Loss(x, labels).item<double>();
  EXPECT_GT(loss, 0.0);
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_EQ(dynamic_cast<DeepSpeech2&>(*model).LastTranscripts().size(), 5u);
}

TEST(DeepSpeech2Test, TrainingLowersTheCtcLossOnEspeakUtterances) {
  std::string dir = ::testing::TempDir() + "speech_ctc_XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  GenerateOptions g;
  g.format = "speech";
  g.out_dir = dir + "/speech";
  g.train_count = 4;
  g.test_count = 1;
  g.seed = 11;
  absl::Status st = GenerateDataset(g, {});
  ASSERT_TRUE(st.ok()) << st << " (install espeak-ng and wordnet-base: "
                       << "infra/scripts/install-deps.sh)";
  DatasetOptions d;
  d.split = Split::kTrain;
  absl::StatusOr<std::unique_ptr<Dataset>> set = OpenDataset(g.out_dir, d);
  ASSERT_TRUE(set.ok()) << set.status();
  const std::vector<int32_t> indices = {0, 1, 2, 3};
  absl::StatusOr<Minibatch> mb =
      BuildMinibatch(**set, indices.data(), 4, /*seed=*/1, 0, 0);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(mb.ok()) << mb.status();
  // Only the padding beyond the longest utterance is cut (to keep the test
  // short on a CPU): the window is that utterance's frames, and the
  // transcript row follows it as in any sample.
  const torch::Tensor& x = mb->images;  // (4, 1, 257, 80)
  const int64_t longest =
      x.select(1, 0).select(1, 256).select(1, 0).max().item<int64_t>();
  ModelOptions o;
  o.seq_len = std::max<int64_t>(32, longest);
  Minibatch trimmed = *mb;
  trimmed.images =
      torch::cat({x.narrow(2, 0, o.seq_len), x.narrow(2, 256, 1)}, 2);

  torch::manual_seed(5);
  std::shared_ptr<Model> model = Build(o);
  ASSERT_NE(model, nullptr);
  std::unique_ptr<Step> train = MakeStep(v1::TASK_TRAIN, model);
  std::vector<double> losses;
  constexpr int kSteps = 20;
  for (int i = 0; i < kSteps; ++i) losses.push_back(train->Run(trimmed).loss);
  // Inference on the same utterances: the loss, and a greedy decode.
  std::unique_ptr<Step> infer = MakeStep(v1::TASK_INFER, model);
  const StepResult r = infer->Run(trimmed);
  const auto& texts = dynamic_cast<DeepSpeech2&>(*model).LastTranscripts();
  std::cout << "CTC loss on 4 espeak-ng utterances (window " << o.seq_len
            << " frames):";
  for (int i = 0; i < kSteps; i += 4) std::cout << " " << losses[i];
  std::cout << " ... " << losses.back() << "; eval loss " << r.loss << "\n";
  for (const std::string& t : texts) std::cout << "  decoded: '" << t << "'\n";
  // From the random start (about 17) past the all-blank plateau's
  // neighbourhood within a few steps, still falling at the end.
  EXPECT_LT(losses.back(), 0.3 * losses.front());
  EXPECT_LT(losses.back(), losses[kSteps / 2]);
  EXPECT_TRUE(std::isfinite(r.loss));
  EXPECT_EQ(r.tokens, 4 * o.seq_len);  // the frames of the window
  EXPECT_EQ(texts.size(), 4u);
}

}  // namespace
}  // namespace powersweep
