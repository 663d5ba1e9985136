// WriteFramesSet (generated_set_writers.h): the replay memory of CatchGame
// (catch_game.h) played by an epsilon-greedy policy, in the frames format
// (frames_format.h).
//
// Each split plays its own game (seeded from --seed and the split) for as
// many steps as it has transitions. Each episode is played, with equal
// probability, by a skilled policy (towards the ball with probability 0.8,
// a uniformly random action otherwise) or by a random one, drawn from a
// generator of its own, so the memory holds both catches and misses. A state is the last 4 frames; at the start of an
// episode the first frame is repeated to fill it.
#include <deque>
#include <fstream>
#include <random>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "workloads/data/catch_game.h"
#include "workloads/data/file_util.h"
#include "workloads/data/frames_format.h"
#include "workloads/data/generated_set_writers.h"

namespace powersweep {
namespace {

constexpr int kStack = 4;
constexpr double kGreedy = 0.8;  // the skilled policy's

absl::Status WriteSplit(const GenerateOptions& o, Split split, int64_t count,
                        ProgressReporter& progress, int64_t done_before) {
  const std::string path = JoinPath(o.out_dir, FramesFileName(split));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open for writing"));
  }
  FramesHeader h;
  h.height = CatchGame::kSide;
  h.width = CatchGame::kSide;
  h.stack = kStack;
  h.actions = CatchGame::kActions;
  h.count = count;
  out << EncodeFramesHeader(h);

  const uint64_t base = o.seed * 2 + (split == Split::kTrain ? 0 : 1);
  CatchGame game(base);
  std::mt19937_64 policy(base ^ 0x9e3779b97f4a7c15ULL);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::deque<std::vector<uint8_t>> frames;
  std::string record;
  bool skilled = false;
  for (int64_t i = 0; i < count; ++i) {
    if (frames.empty()) {
      const std::vector<uint8_t> first = game.Render();
      frames.assign(kStack, first);
      skilled = coin(policy) < 0.5;
    }
    int action;
    if (skilled && coin(policy) < kGreedy) {
      const int ball = game.ball_x() + CatchGame::kBall / 2;
      const int paddle = game.paddle_x() + CatchGame::kPaddleWidth / 2;
      action = ball < paddle - 2 ? 1 : (ball > paddle + 2 ? 2 : 0);
    } else {
      action = static_cast<int>(policy() % CatchGame::kActions);
    }
    const CatchGame::StepOutcome step = game.Step(action);
    // The frame after a done step shows the new episode; the terminal
    // state's frame is the one before the reset, which Render would no
    // longer draw, so a done transition repeats the last frame (no
    // bootstrap happens from it).
    std::vector<uint8_t> next = step.done ? frames.back() : game.Render();
    record.clear();
    record.push_back(static_cast<char>(action));
    record.push_back(static_cast<char>(static_cast<int8_t>(step.reward)));
    record.push_back(static_cast<char>(step.done ? 1 : 0));
    record.push_back(0);
    for (const std::vector<uint8_t>& f : frames) {
      record.append(reinterpret_cast<const char*>(f.data()), f.size());
    }
    record.append(reinterpret_cast<const char*>(next.data()), next.size());
    out.write(record.data(), static_cast<std::streamsize>(record.size()));
    if (step.done) {
      frames.clear();
    } else {
      frames.pop_front();
      frames.push_back(std::move(next));
    }
    progress.Report(done_before + i + 1);
  }
  out.close();
  if (!out) {
    return absl::InternalError(absl::StrCat(path, ": write failed"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteFramesSet(const GenerateOptions& o,
                            ProgressReporter& progress) {
  absl::Status st = WriteSplit(o, Split::kTrain, o.train_count, progress, 0);
  if (!st.ok()) return st;
  return WriteSplit(o, Split::kTest, o.test_count, progress, o.train_count);
}

}  // namespace powersweep
