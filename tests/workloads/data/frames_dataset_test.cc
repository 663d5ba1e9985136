#include "workloads/data/frames_dataset.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/workloads/data/data_test_helpers.h"
#include "tests/workloads/test_files.h"
#include "workloads/data/catch_game.h"
#include "workloads/data/frames_format.h"

namespace powersweep {
namespace {

using ::powersweep::testing::LoadSample;
using ::powersweep::testing::Open;
using ::powersweep::testing::TempDir;
using ::testing::HasSubstr;

constexpr int64_t kFrame = 84 * 84;

GenerateOptions FramesSet(const std::string& dir, int64_t train = 300) {
  GenerateOptions g;
  g.format = "frames";
  g.out_dir = dir;
  g.train_count = train;
  g.test_count = 20;
  g.seed = 11;
  return g;
}

TEST(FramesDatasetTest, GeneratedSetRoundTripsThroughTheReader) {
  TempDir dir;
  const GenerateOptions g = FramesSet(dir.File("set"));
  ASSERT_TRUE(GenerateDataset(g, nullptr).ok());
  absl::StatusOr<std::string> format = DetectDatasetFormat(g.out_dir);
  ASSERT_TRUE(format.ok()) << format.status();
  EXPECT_EQ(*format, "frames");
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g.out_dir, Split::kTrain);
  ASSERT_TRUE(d.ok()) << d.status();
  const Dataset& set = **d;
  EXPECT_EQ(set.format(), "frames");
  EXPECT_EQ(set.size(), 300);
  EXPECT_EQ(set.shape(), (SampleShape{5, 84, 84}));
  EXPECT_EQ(set.model_outputs(), 3);
  EXPECT_EQ(set.num_classes(), 18);
  EXPECT_EQ(set.files(), std::vector<std::string>{g.out_dir + "/train.frames"});

  std::set<int> rewards, actions;
  int episodes = 0;
  for (int64_t i = 0; i < set.size(); ++i) {
    const Transition t = DecodeTransition(set.label(i), 3);
    rewards.insert(t.reward);
    actions.insert(static_cast<int>(t.action));
    episodes += t.done ? 1 : 0;
    // Only the end of an episode is rewarded.
    EXPECT_EQ(t.reward != 0, t.done) << "transition " << i;
  }
  // An episode lasts about 26 frames; the policy both catches and misses.
  EXPECT_GE(episodes, 8);
  EXPECT_EQ(rewards, (std::set<int>{-1, 0, 1}));
  EXPECT_EQ(actions, (std::set<int>{0, 1, 2}));

  // Within an episode, the next state of one transition is the state of
  // the next: frames 1..4 of sample i are frames 0..3 of sample i + 1.
  for (int64_t i = 0; i + 1 < 40; ++i) {
    if (DecodeTransition(set.label(i), 3).done) continue;
    const std::vector<float> a = LoadSample(set, i, 0);
    const std::vector<float> b = LoadSample(set, i + 1, 0);
    ASSERT_EQ(a.size(), static_cast<size_t>(5 * kFrame));
    EXPECT_TRUE(std::equal(a.begin() + kFrame, a.end(), b.begin()))
        << "transition " << i;
  }
  // Pixels are scaled to 0..1; the ball (255) and the paddle (160) show.
  const std::vector<float> s = LoadSample(set, 5, 0);
  std::set<float> values(s.begin(), s.end());
  EXPECT_TRUE(values.count(1.0f));
  EXPECT_TRUE(values.count(160 / 255.0f));
  EXPECT_EQ(*values.begin(), 0.0f);

  absl::StatusOr<std::unique_ptr<Dataset>> test = Open(g.out_dir, Split::kTest);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ((*test)->size(), 20);
}

TEST(FramesDatasetTest, GenerationIsAFunctionOfTheSeed) {
  TempDir dir;
  GenerateOptions a = FramesSet(dir.File("a"), 30);
  GenerateOptions b = FramesSet(dir.File("b"), 30);
  GenerateOptions c = FramesSet(dir.File("c"), 30);
  c.seed = 12;
  for (const GenerateOptions* g : {&a, &b, &c}) {
    ASSERT_TRUE(GenerateDataset(*g, nullptr).ok());
  }
  const std::string fa = testing::ReadFile(a.out_dir + "/train.frames");
  EXPECT_EQ(fa, testing::ReadFile(b.out_dir + "/train.frames"));
  EXPECT_NE(fa, testing::ReadFile(c.out_dir + "/train.frames"));
  EXPECT_EQ(static_cast<int64_t>(fa.size()),
            kFramesHeaderBytes + 30 * (4 + 5 * kFrame));
}

TEST(FramesDatasetTest, OnlyTheGamesScreenSizeIsAccepted) {
  TempDir dir;
  GenerateOptions g = FramesSet(dir.File("set"), 10);
  g.image_size = 64;
  absl::Status st = GenerateDataset(g, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("--image-size"));
}

class BadFramesFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_ = FramesSet(dir_.File("set"), 10);
    ASSERT_TRUE(GenerateDataset(g_, nullptr).ok());
    file_ = g_.out_dir + "/train.frames";
    bytes_ = testing::ReadFile(file_);
  }
  // Opening the training split fails with `code`, naming the file and
  // saying `why`.
  void ExpectError(const std::string& content, absl::StatusCode code,
                   const std::string& why) {
    testing::WriteFile(file_, content);
    absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g_.out_dir, Split::kTrain);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), code) << d.status();
    EXPECT_THAT(d.status().message(), HasSubstr(file_));
    EXPECT_THAT(d.status().message(), HasSubstr(why));
  }
  TempDir dir_;
  GenerateOptions g_;
  std::string file_;
  std::string bytes_;
};

TEST_F(BadFramesFileTest, TruncatedFile) {
  ExpectError(bytes_.substr(0, bytes_.size() - 100), absl::StatusCode::kDataLoss,
              "truncated");
}

TEST_F(BadFramesFileTest, TrailingBytes) {
  ExpectError(bytes_ + "xx", absl::StatusCode::kDataLoss, "trailing data");
}

TEST_F(BadFramesFileTest, ShorterThanTheHeader) {
  ExpectError(bytes_.substr(0, 12), absl::StatusCode::kDataLoss,
              "shorter than the 40-byte header");
}

TEST_F(BadFramesFileTest, WrongMagic) {
  std::string b = bytes_;
  b[0] = 'X';
  ExpectError(b, absl::StatusCode::kDataLoss, "PSFRAME1");
}

TEST_F(BadFramesFileTest, ActionOutOfRange) {
  std::string b = bytes_;
  b[kFramesHeaderBytes + 2 * (4 + 5 * kFrame)] = 7;  // record 2's action
  ExpectError(b, absl::StatusCode::kDataLoss, "record 2 is corrupt: action 7");
}

TEST_F(BadFramesFileTest, RewardOutOfRange) {
  std::string b = bytes_;
  b[kFramesHeaderBytes + 1] = 5;  // record 0's reward
  ExpectError(b, absl::StatusCode::kDataLoss, "reward 5");
}

TEST_F(BadFramesFileTest, ZeroActionsInTheHeader) {
  FramesHeader h;
  h.height = 84;
  h.width = 84;
  h.stack = 4;
  h.actions = 0;
  h.count = 10;
  ExpectError(EncodeFramesHeader(h) + bytes_.substr(kFramesHeaderBytes),
              absl::StatusCode::kDataLoss, "actions 0 is outside 2..255");
}

TEST_F(BadFramesFileTest, MissingSplitIsNotFoundNamingTheFile) {
  absl::StatusOr<std::unique_ptr<Dataset>> d = Open(g_.out_dir, Split::kTest);
  ASSERT_TRUE(d.ok()) << d.status();
  std::remove((g_.out_dir + "/test.frames").c_str());
  d = Open(g_.out_dir, Split::kTest);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(d.status().message(), HasSubstr(g_.out_dir + "/test.frames"));
}

TEST(CatchGameTest, TheBallFallsAndTheEpisodeEndsAtThePaddle) {
  CatchGame game(3);
  int steps = 0;
  CatchGame::StepOutcome out;
  do {
    out = game.Step(0);
    ++steps;
  } while (!out.done && steps < 100);
  EXPECT_TRUE(out.done);
  EXPECT_EQ(steps, 25);  // (78 - 4) / 3 rounded up
  EXPECT_NE(out.reward, 0);
}

}  // namespace
}  // namespace powersweep
