#include "workloads/runner/run_config.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

RunConfig Valid() {
  RunConfig c;
  c.dataset_path = "/usr/share/datasets/fashion-mnist";
  c.minibatches = 10;
  c.records_fd = 2;  // stderr is open in any test process
  return c;
}

std::string ErrorOf(const RunConfig& c) {
  absl::Status st = ValidateRunConfig(c);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  return std::string(st.message());
}

TEST(RunConfigTest, AcceptsACompleteConfig) {
  EXPECT_TRUE(ValidateRunConfig(Valid()).ok());
}

TEST(RunConfigTest, UnknownModelNamesFlagAndKnownModels) {
  RunConfig c = Valid();
  c.model = "resnet9";
  EXPECT_EQ(ErrorOf(c),
            "--model: unknown model 'resnet9' (known: alexnet, deepspeech2, "
            "dqn, gpt2_small, inception_v3, lenet5, lstm_lm, memnet, "
            "mobilebert, mobilenetv3, resnet18, resnet50, seq2seq, "
            "seq2seq_lstm, squeezenet1_1, vae, vgg11, vgg19; kernels: conv, "
            "gemm, rnn)");
  c.model = "mobilenet_v3_large";  // torchvision's name is an alias
  EXPECT_TRUE(ValidateRunConfig(c).ok());
}

TEST(RunConfigTest, SequenceOptionsAreCheckedAndOnlyForSequenceModels) {
  RunConfig c = Valid();
  c.model = "gpt2_small";
  c.seq_len = 512;
  c.gen_tokens = 64;
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  c.seq_len = 1024;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--seq-len: 1024 is outside 1..1023"));
  c.seq_len = 1000;
  c.gen_tokens = 30;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--gen-tokens: 30 with --seq-len 1000 "
                                    "does not fit gpt2_small's context"));
  c.model = "lenet5";
  c.seq_len = 128;
  c.gen_tokens = 0;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--seq-len: lenet5 takes images"));
  c.seq_len = 0;
  c.gen_tokens = 8;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--gen-tokens: lenet5 takes images"));
}

TEST(RunConfigTest, PipelineKnobsAreChecked) {
  RunConfig c = Valid();
  c.prefetch_depth = -1;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--prefetch-depth: must be within"));
  c = Valid();
  c.input_size = 8;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--input-size: must be 0"));
  c = Valid();
  c.preload = true;  // Valid() trains
  EXPECT_EQ(ErrorOf(c), "--preload: applies to --task infer only");
  c.task = v1::TASK_INFER;
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  EXPECT_EQ(ParsePageCache("drop").value(), v1::PAGE_CACHE_DROP);
  EXPECT_THAT(std::string(ParsePageCache("flush").status().message()),
              HasSubstr("--page-cache: 'flush' is not keep or drop"));
}

TEST(RunConfigTest, MissingStopConditionIsRejected) {
  RunConfig c = Valid();
  c.minibatches = 0;
  EXPECT_THAT(ErrorOf(c), HasSubstr("no stop condition"));
  c.duration_s = 0.5;
  EXPECT_TRUE(ValidateRunConfig(c).ok()) << "any one limit is enough";
}

TEST(RunConfigTest, OutOfRangeNumbersNameTheirFlag) {
  RunConfig c = Valid();
  c.batch_size = 0;
  EXPECT_EQ(ErrorOf(c), "--batch-size: must be at least 1, got 0");
  c = Valid();
  c.workers = -1;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--workers:"));
  c = Valid();
  c.duration_s = -2;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--duration-s:"));
  c = Valid();
  c.threads = -4;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--threads:"));
  c = Valid();
  c.dataset_path = "";
  EXPECT_THAT(ErrorOf(c), HasSubstr("--dataset-path: required"));
}

// --seq-len and --vocab reach the sequence models only; an image model or
// a kernel given one is refused naming the flag and the reason.
TEST(RunConfigTest, SequenceOptionsFitTheModel) {
  RunConfig c = Valid();
  c.model = "lstm_lm";
  c.dataset_path = "synthetic";
  c.seq_len = 4096;
  c.vocab = 300;
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  c.seq_len = 4097;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--seq-len: must be 0 (lstm_lm's default "
                                    "of 35) or within 1..4096"));
  c.seq_len = 0;
  c.vocab = 3;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--vocab: must be 0"));
  c = Valid();
  c.seq_len = 64;
  EXPECT_EQ(ErrorOf(c),
            "--seq-len: lenet5 takes images, not token sequences");
  c = Valid();
  c.model = "gemm";
  c.dataset_path = "";
  c.kernel_shape = "m64-n64-k64-nn";
  c.vocab = 100;
  EXPECT_EQ(ErrorOf(c),
            "--vocab: kernel gemm takes its shape from --kernel-shape");
}

// deepspeech2's --seq-len is its window of spectrogram frames.
TEST(RunConfigTest, SpeechFramesFitDeepSpeech2) {
  RunConfig c = Valid();
  c.model = "deepspeech2";
  c.dataset_path = "synthetic";
  c.seq_len = 3000;
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  c.seq_len = 3001;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--seq-len: must be 0 (deepspeech2's "
                                    "default of 256 frames) or within "
                                    "32..3000 spectrogram frames"));
  c.seq_len = 0;
  c.vocab = 50;
  EXPECT_THAT(ErrorOf(c), HasSubstr("--vocab: deepspeech2 takes spectrograms"));
}

TEST(RunConfigTest, ClosedRecordsDescriptorIsRejected) {
  RunConfig c = Valid();
  c.records_fd = 987;
  EXPECT_EQ(ErrorOf(c), "--records-fd: 987 is not an open file descriptor");
}

TEST(RunConfigTest, ParsesTrainAndInferOnly) {
  EXPECT_EQ(*ParseTask("train"), v1::TASK_TRAIN);
  EXPECT_EQ(*ParseTask("infer"), v1::TASK_INFER);
  absl::StatusOr<v1::Task> bad = ParseTask("eval");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--task: 'eval' is not train or infer");
}

}  // namespace
}  // namespace powersweep
