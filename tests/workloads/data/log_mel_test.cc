// The C++ log-mel front end (workloads/data/log_mel.h) against a PyTorch
// computation of the same recipe (log_mel_reference.py beside this file,
// run with /usr/bin/python3) on a real utterance spoken by espeak-ng, and
// its frame arithmetic. Fails (does not skip) without espeak-ng or torch:
// the build environment installs both (infra/scripts/install-deps.sh).
#include "workloads/data/log_mel.h"

#include <stdio.h>
#include <sys/wait.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/espeak.h"
#include "workloads/data/wav_file.h"

namespace powersweep {
namespace {

using ::powersweep::testing::ReadFile;
using ::powersweep::testing::TempDir;

int RunShell(const std::string& command, std::string* output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output->append(buf, n);
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(LogMelTest, FrameArithmeticFollowsTheWindowAndHop) {
  const LogMel at16k(16000);
  EXPECT_EQ(at16k.window(), 400);
  EXPECT_EQ(at16k.hop(), 160);
  EXPECT_EQ(at16k.n_fft(), 512);
  EXPECT_EQ(at16k.Frames(399), 0);
  EXPECT_EQ(at16k.Frames(400), 1);
  EXPECT_EQ(at16k.Frames(16000), 98);  // 1 + (16000 - 400) / 160
  const LogMel at22k(22050);
  EXPECT_EQ(at22k.window(), 551);
  EXPECT_EQ(at22k.hop(), 221);
  EXPECT_EQ(at22k.n_fft(), 1024);
}

TEST(LogMelTest, APureToneLightsTheBandAroundItsFrequency) {
  const int rate = 16000;
  std::vector<float> tone(rate / 2);
  for (size_t i = 0; i < tone.size(); ++i) {
    tone[i] = 0.5f * static_cast<float>(std::sin(2 * M_PI * 1000.0 * i / rate));
  }
  const LogMel mel(rate);
  const std::vector<float> out = mel.Compute(tone);
  ASSERT_EQ(out.size(), static_cast<size_t>(mel.Frames(tone.size()) * 80));
  // HTK mel of 1 kHz is 1000.0; the 80 bands span 0..2840 mel (8 kHz), so
  // 1 kHz sits between bands 27 and 28 (1000 / (2840 / 81) - 1 = 27.5).
  int loudest = 0;
  for (int b = 1; b < 80; ++b) {
    if (out[10 * 80 + b] > out[10 * 80 + loudest]) loudest = b;
  }
  EXPECT_NEAR(loudest, 27.5, 1.0);
  // Silence gives the floor's log.
  const std::vector<float> quiet = mel.Compute(std::vector<float>(800, 0.0f));
  for (float v : quiet) EXPECT_FLOAT_EQ(v, std::log(1e-10f));
}

TEST(LogMelTest, AgreesWithAPyTorchReferenceOnRealSpeech) {
  TempDir dir;
  absl::StatusOr<std::string> espeak = FindEspeak();
  ASSERT_TRUE(espeak.ok()) << espeak.status();
  const std::string wav = dir.File("utterance.wav");
  SpeakOptions voice;
  voice.voice = "en-us+f2";
  ASSERT_TRUE(Speak(*espeak, "spectral analysis of speech", voice, wav).ok());
  absl::StatusOr<WavAudio> audio = ReadWav(wav);
  ASSERT_TRUE(audio.ok()) << audio.status();
  ASSERT_EQ(audio->sample_rate, 22050);
  const LogMel mel(audio->sample_rate);
  const std::vector<float> ours = mel.Compute(audio->samples);
  const int64_t frames = mel.Frames(audio->samples.size());
  ASSERT_GT(frames, 100);  // more than a second of speech

  const std::string script = std::string(POWERSWEEP_SOURCE_DIR) +
                             "/tests/workloads/data/log_mel_reference.py";
  std::string output;
  const int rc = RunShell("/usr/bin/python3 " + script + " " + wav + " " +
                              dir.File("reference.bin"),
                          &output);
  ASSERT_NE(rc, 3) << "/usr/bin/python3 lacks torch: " << output;
  ASSERT_EQ(rc, 0) << output;
  const std::string bytes = ReadFile(dir.File("reference.bin"));
  ASSERT_EQ(bytes.size(), ours.size() * sizeof(double)) << output;
  std::vector<double> ref(ours.size());
  std::memcpy(ref.data(), bytes.data(), bytes.size());
  double worst = 0;
  double lo = 1e30, hi = -1e30;
  for (size_t i = 0; i < ours.size(); ++i) {
    worst = std::max(worst, std::abs(ours[i] - ref[i]));
    lo = std::min(lo, ref[i]);
    hi = std::max(hi, ref[i]);
  }
  std::printf("log-mel of %lld frames x 80 bands: values %.2f..%.2f, max "
              "|C++ - PyTorch| %.3g\n",
              static_cast<long long>(frames), lo, hi, worst);
  // Speech spans tens of log units; float32 output rounding is ~1e-6.
  EXPECT_GT(hi - lo, 10.0);
  EXPECT_LT(worst, 1e-3);
}

}  // namespace
}  // namespace powersweep
