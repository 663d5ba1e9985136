// The twin's cost model of deepspeech2 (simulated) against the figures the
// workload's own network gives (`powersweep-workload describe --model
// deepspeech2`; speech_parity_test checks those against a torch.nn
// reference), and the espeak-words data set's per-sample reading.
#include "agent/platform/twin/dataset_cost.h"
#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/twin_workload_cost.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

// describe's MACs at `frames` (tests/workloads/models/speech_model_test.cc).
double DescribeMacs(double frames) {
  const double t = static_cast<int64_t>(frames + 1) / 2;
  return 32 * t * 40 * 11 * 41 + 32 * t * 20 * 32 * 11 * 21 +
         t * 2 * 3 * 256 * ((640 + 256) + 2 * (512 + 256)) + t * 29 * 512;
}

TEST(SpeechCostTest, DeepSpeech2MatchesTheWorkloadsCounts) {
  const ModelCost c = *ModelCostFor("deepspeech2");
  EXPECT_EQ(c.input.size, 256);
  EXPECT_EQ(c.input.classes, 29);
  EXPECT_EQ(c.params, 4010813);  // describe --model deepspeech2
  EXPECT_EQ(c.forward_macs, DescribeMacs(256));
  EXPECT_EQ(c.input_values, 257 * 80);  // frames + the transcript row
  // conv1, bn1, conv2, bn2 (2 each), 4 per GRU layer and direction, fc 2.
  EXPECT_EQ(c.param_tensors, 8 + 4 * 6 + 2);
  // 2 x 3 per convolution block, the permute, per GRU layer 2 x (1 + 2 x
  // 128) and the concatenation, fc (docs/twin-model.md).
  EXPECT_EQ(c.forward_kernels, 3 + 3 + 1 + 3 * (2 * (1 + 2 * 128) + 1) + 1);
  // The GRUs launch 2 small kernels per output frame and direction: the
  // kernel count grows with the window, as on a GPU.
  const ModelCost longer = *ModelCostFor("deepspeech2", {1, 1000, 29});
  EXPECT_EQ(longer.forward_macs, DescribeMacs(1000));
  EXPECT_EQ(longer.forward_kernels - c.forward_kernels,
            6 * 2 * (500 - 128));
  EXPECT_GT(c.train_kernels, 3 * c.forward_kernels);
}

TEST(SpeechCostTest, WindowsOutsideTheLimitsAreRefused) {
  for (const ModelInput in : {ModelInput{1, 31, 29}, ModelInput{1, 3001, 29},
                              ModelInput{3, 256, 29}, ModelInput{1, 256, 10}}) {
    absl::StatusOr<ModelCost> c = ModelCostFor("deepspeech2", in);
    ASSERT_FALSE(c.ok()) << in.channels << "x" << in.size;
    EXPECT_THAT(c.status().message(), HasSubstr("32..3000 spectrogram frames"));
  }
}

TEST(SpeechCostTest, EspeakWordsIsReadPerSampleAndTakesTheRunsWindow) {
  const DatasetCost d = *DatasetCostFor("espeak-words");
  EXPECT_EQ(d.format, DatasetFormat::kSpeech);
  EXPECT_FALSE(d.LoadedAtStart());  // a WAV read and a log-mel per sample
  EXPECT_STREQ(DatasetFormatName(d.format), "speech");
  EXPECT_EQ(d.train.samples, 1000);
  EXPECT_EQ(d.infer.samples, 200);
  EXPECT_GT(d.decode_cycles_per_sample, 1e6);
  EXPECT_NEAR(d.FileBytesPerSample(true), 59863, 1);

  TwinInputOverride o;
  o.seq_len = 400;
  absl::StatusOr<TwinWorkloadCost> w =
      TwinWorkloadCostFor("deepspeech2", "espeak-words", o);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->model.input.size, 400);
  EXPECT_EQ(w->model.forward_macs, DescribeMacs(400));
  // input_size is an image option: deepspeech2 keeps its window.
  o = {};
  o.input_size = 64;
  EXPECT_EQ(TwinWorkloadCostFor("deepspeech2", "synthetic", o)->model.input.size,
            256);
  // Speech only for deepspeech2, and deepspeech2 only on speech.
  absl::StatusOr<TwinWorkloadCost> bad =
      TwinWorkloadCostFor("deepspeech2", "mnist");
  EXPECT_THAT(bad.status().message(), HasSubstr("reads spectrograms"));
  bad = TwinWorkloadCostFor("resnet18", "espeak-words");
  EXPECT_THAT(bad.status().message(), HasSubstr("only deepspeech2 reads"));
  bad = TwinWorkloadCostFor("lstm_lm", "espeak-words");
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace powersweep
