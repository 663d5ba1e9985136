// The speech format (speech_format.h, speech_dataset.h, wav_file.h) and
// gen-dataset --format speech: WAV parsing and its errors, manifest checks
// naming the line, a real set spoken by espeak-ng (installed by
// infra/scripts/install-deps.sh; the generation test fails without it) read
// back as padded log-mel samples with their transcript row, and the window
// check naming --seq-len.
#include "workloads/data/speech_dataset.h"

#include <stdlib.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/dataset_generator.h"
#include "workloads/data/log_mel.h"
#include "workloads/data/speech_format.h"
#include "workloads/data/wav_file.h"

namespace powersweep {
namespace {

using ::powersweep::testing::ReadFile;
using ::powersweep::testing::TempDir;
using ::powersweep::testing::WriteFile;
using ::testing::HasSubstr;

GenerateOptions SpeechOptions(const std::string& out) {
  GenerateOptions o;
  o.format = "speech";
  o.out_dir = out;
  o.train_count = 12;
  o.test_count = 4;
  o.seed = 7;
  return o;
}

absl::StatusOr<std::unique_ptr<Dataset>> OpenSpeech(const std::string& dir,
                                                    Split split,
                                                    int64_t frames = 0) {
  DatasetOptions o;
  o.split = split;
  o.seq_len = frames;
  return OpenDataset(dir, o);
}

TEST(WavFileTest, WriteThenReadKeepsTheSamples) {
  TempDir dir;
  const std::vector<int16_t> pcm = {0, 16384, -32768, 32767, -1};
  ASSERT_TRUE(WriteWav(dir.File("a.wav"), 16000, pcm).ok());
  absl::StatusOr<WavAudio> audio = ReadWav(dir.File("a.wav"));
  ASSERT_TRUE(audio.ok()) << audio.status();
  EXPECT_EQ(audio->sample_rate, 16000);
  ASSERT_EQ(audio->samples.size(), pcm.size());
  EXPECT_FLOAT_EQ(audio->samples[1], 0.5f);
  EXPECT_FLOAT_EQ(audio->samples[2], -1.0f);
  absl::StatusOr<WavInfo> info = ReadWavInfo(dir.File("a.wav"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->samples, 5);
  EXPECT_EQ(info->data_offset, 44);
}

// A WAV with a LIST chunk before the data, `channels` and `bits`.
std::string HandMadeWav(int channels, int bits, const std::string& data) {
  auto u32 = [](uint32_t v) {
    return std::string{static_cast<char>(v), static_cast<char>(v >> 8),
                       static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
  };
  auto u16 = [](uint16_t v) {
    return std::string{static_cast<char>(v), static_cast<char>(v >> 8)};
  };
  std::string fmt = u16(1) + u16(channels) + u32(8000) +
                    u32(8000 * channels * bits / 8) +
                    u16(channels * bits / 8) + u16(bits);
  std::string body = "WAVEfmt " + u32(16) + fmt + "LIST" + u32(3) + "abc" +
                     std::string(1, '\0') + "data" + u32(data.size()) + data;
  return "RIFF" + u32(body.size()) + body;
}

TEST(WavFileTest, StereoIsAveragedAndOtherChunksSkipped) {
  // Two frames: (1000, 3000) and (-2000, 0).
  const std::string data = std::string("\xe8\x03\xb8\x0b\x30\xf8\x00\x00", 8);
  absl::StatusOr<WavAudio> audio = ParseWav(HandMadeWav(2, 16, data), "s.wav");
  ASSERT_TRUE(audio.ok()) << audio.status();
  ASSERT_EQ(audio->samples.size(), 2u);
  EXPECT_FLOAT_EQ(audio->samples[0], 2000.0f / 32768.0f);
  EXPECT_FLOAT_EQ(audio->samples[1], -1000.0f / 32768.0f);
}

TEST(WavFileTest, ErrorsNameTheFileAndTheField) {
  absl::StatusOr<WavAudio> r = ParseWav(HandMadeWav(1, 24, "abc"), "x.wav");
  ASSERT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(r.status().message(), HasSubstr("x.wav"));
  EXPECT_THAT(r.status().message(), HasSubstr("16 bits per sample expected, got 24"));
  r = ParseWav("RIFF....WAVE", "y.wav");
  EXPECT_THAT(r.status().message(), HasSubstr("no fmt chunk"));
  r = ParseWav("not a wav at all", "z.wav");
  EXPECT_THAT(r.status().message(), HasSubstr("no RIFF/WAVE header"));
}

TEST(SpeechFormatTest, ManifestErrorsNameTheLine) {
  absl::StatusOr<std::vector<Utterance>> ok =
      ParseSpeechManifest("train/1.wav\thello world\n\ntrain/2.wav\tit's\n",
                          "m.tsv");
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[1].transcript, "it's");
  auto message = [](const std::string& text) {
    return std::string(ParseSpeechManifest(text, "m.tsv").status().message());
  };
  EXPECT_THAT(message("a.wav\tok\nb.wav\tHello\n"),
              HasSubstr("m.tsv:2: character 'H' at 0 is not in the alphabet"));
  EXPECT_THAT(message("a.wav hello\n"), HasSubstr("m.tsv:1: no tab"));
  EXPECT_THAT(message("../a.wav\thello\n"), HasSubstr("stay inside it"));
  EXPECT_THAT(message("a.wav\thello  world\n"), HasSubstr("doubled space"));
  EXPECT_THAT(message("a.wav\t" + std::string(79, 'a') + "\n"),
              HasSubstr("at most 78"));
  EXPECT_EQ(TranscriptIds("a b'"), (std::vector<int>{3, 1, 4, 2}));
  EXPECT_EQ(IdsToText({3, 0, 1, 4}), "a b");
}

TEST(SpeechDatasetTest, EspeakUtterancesBecomePaddedLogMelSamples) {
  TempDir dir;
  const std::string out = dir.File("speech");
  absl::Status st = GenerateDataset(SpeechOptions(out), {});
  ASSERT_TRUE(st.ok()) << st << " (install espeak-ng and wordnet-base: "
                       << "infra/scripts/install-deps.sh)";
  absl::StatusOr<std::string> format = DetectDatasetFormat(out);
  ASSERT_TRUE(format.ok());
  EXPECT_EQ(*format, "speech");  // not an image folder despite train/
  EXPECT_THAT(ReadFile(out + "/.powersweep-dataset"),
              HasSubstr("espeak-ng"));

  absl::StatusOr<std::vector<Utterance>> manifest = ParseSpeechManifest(
      ReadFile(out + "/train-transcripts.tsv"), "train");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  ASSERT_EQ(manifest->size(), 12u);
  std::set<int64_t> lengths;
  std::set<std::string> texts;
  for (const Utterance& u : *manifest) {
    absl::StatusOr<WavInfo> info = ReadWavInfo(out + "/" + u.wav);
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ(info->sample_rate, 22050);
    EXPECT_EQ(info->channels, 1);
    lengths.insert(info->samples);
    texts.insert(u.transcript);
    const size_t words =
        std::vector<std::string>(absl::StrSplit(u.transcript, ' ')).size();
    EXPECT_GE(words, 1u);
    EXPECT_LE(words, 3u);
  }
  EXPECT_GE(lengths.size(), 10u);  // different words, voices and speeds
  EXPECT_GE(texts.size(), 10u);

  absl::StatusOr<std::unique_ptr<Dataset>> set =
      OpenSpeech(out, Split::kTrain);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ((*set)->format(), "speech");
  EXPECT_EQ((*set)->size(), 12);
  EXPECT_EQ((*set)->num_classes(), 29);
  EXPECT_TRUE((*set)->shape() == (SampleShape{1, 257, 80}));
  EXPECT_TRUE((*set)->reads_files_per_sample());
  std::vector<float> sample((*set)->shape().numel());
  ASSERT_TRUE((*set)->Load(3, 0, sample.data()).ok());
  const Utterance& u = (*manifest)[3];
  absl::StatusOr<WavAudio> audio = ReadWav(out + "/" + u.wav);
  ASSERT_TRUE(audio.ok());
  const int64_t frames = LogMel(22050).Frames(audio->samples.size());
  const float* row = sample.data() + 256 * 80;
  EXPECT_EQ(row[0], frames);
  ASSERT_EQ(row[1], u.transcript.size());
  std::string decoded;
  for (size_t c = 0; c < u.transcript.size(); ++c) {
    decoded.push_back(IdCharacter(static_cast<int>(row[2 + c])));
  }
  EXPECT_EQ(decoded, u.transcript);
  // Each band is normalised over the utterance; the padding is zero.
  for (int b : {0, 40, 79}) {
    double sum = 0, sq = 0;
    for (int64_t t = 0; t < frames; ++t) {
      sum += sample[t * 80 + b];
      sq += sample[t * 80 + b] * sample[t * 80 + b];
    }
    EXPECT_NEAR(sum / frames, 0.0, 1e-4);
    EXPECT_NEAR(sq / frames, 1.0, 1e-3);
  }
  for (int64_t t = frames; t < 256; ++t) {
    for (int b = 0; b < 80; ++b) ASSERT_EQ(sample[t * 80 + b], 0.0f);
  }
  absl::StatusOr<std::unique_ptr<Dataset>> test = OpenSpeech(out, Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 4);

  // A window shorter than the longest utterance names --seq-len.
  absl::StatusOr<std::unique_ptr<Dataset>> short_window =
      OpenSpeech(out, Split::kTrain, 32);
  ASSERT_EQ(short_window.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_window.status().message(), HasSubstr("--seq-len"));
  EXPECT_THAT(short_window.status().message(), HasSubstr(".wav"));
  absl::StatusOr<std::unique_ptr<Dataset>> huge =
      OpenSpeech(out, Split::kTrain, 5000);
  EXPECT_THAT(huge.status().message(), HasSubstr("outside 32..3000"));

  // Generating again with the same seed writes the same transcripts.
  const std::string again = dir.File("again");
  ASSERT_TRUE(GenerateDataset(SpeechOptions(again), {}).ok());
  EXPECT_EQ(ReadFile(again + "/train-transcripts.tsv"),
            ReadFile(out + "/train-transcripts.tsv"));
}

TEST(SpeechDatasetTest, AWavTooShortForItsTranscriptIsNamed) {
  TempDir dir;
  ASSERT_TRUE(WriteWav(dir.File("a.wav"), 16000,
                       std::vector<int16_t>(1600, 100))
                  .ok());  // 0.1 s: 8 frames, 4 after striding
  WriteFile(dir.File("train-transcripts.tsv"), "a.wav\tabcdefgh\n");
  absl::StatusOr<std::unique_ptr<Dataset>> set = OpenSpeech(dir.path(), Split::kTrain);
  ASSERT_EQ(set.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(set.status().message(), HasSubstr("a.wav"));
  EXPECT_THAT(set.status().message(), HasSubstr("too short for its transcript"));
  WriteFile(dir.File("train-transcripts.tsv"), "missing.wav\tab\n");
  set = OpenSpeech(dir.path(), Split::kTrain);
  EXPECT_EQ(set.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(set.status().message(), HasSubstr("missing.wav"));
}

TEST(SpeechDatasetTest, MissingEspeakNamesThePackage) {
  TempDir dir;
  const char* old = getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  setenv("PATH", dir.path().c_str(), 1);
  absl::Status st = GenerateDataset(SpeechOptions(dir.File("out")), {});
  setenv("PATH", saved.c_str(), 1);
  ASSERT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("espeak-ng"));
  EXPECT_THAT(st.message(), HasSubstr("package"));
}

TEST(SpeechDatasetTest, GeneratorOptionsAreChecked) {
  TempDir dir;
  GenerateOptions o = SpeechOptions(dir.File("out"));
  o.image_size = 64;
  EXPECT_THAT(GenerateDataset(o, {}).message(), HasSubstr("--image-size"));
  o = SpeechOptions(dir.File("out"));
  o.wordnet_dir = dir.File("nowhere");
  absl::Status st = GenerateDataset(o, {});
  EXPECT_THAT(st.message(), HasSubstr("--from-wordnet"));
  EXPECT_THAT(st.message(), HasSubstr("wordnet-base"));
}

}  // namespace
}  // namespace powersweep
