#include "workloads/data/catch_game.h"

#include <algorithm>

namespace powersweep {

CatchGame::CatchGame(uint64_t seed) : rng_(seed) { NewEpisode(); }

void CatchGame::NewEpisode() {
  ball_x_ = static_cast<int>(rng_() % (kSide - kBall + 1));
  ball_y_ = 0;
  ball_dx_ = static_cast<int>(rng_() % 5) - 2;
}

CatchGame::StepOutcome CatchGame::Step(int action) {
  if (action == 1) paddle_x_ -= 4;
  if (action == 2) paddle_x_ += 4;
  paddle_x_ = std::clamp(paddle_x_, 0, kSide - kPaddleWidth);
  ball_x_ += ball_dx_;
  if (ball_x_ < 0) {
    ball_x_ = -ball_x_;
    ball_dx_ = -ball_dx_;
  }
  if (ball_x_ > kSide - kBall) {
    ball_x_ = 2 * (kSide - kBall) - ball_x_;
    ball_dx_ = -ball_dx_;
  }
  ball_y_ += 3;
  StepOutcome out;
  if (ball_y_ + kBall >= kPaddleRow) {
    const bool caught = ball_x_ + kBall > paddle_x_ &&
                        ball_x_ < paddle_x_ + kPaddleWidth;
    out.reward = caught ? 1 : -1;
    out.done = true;
    NewEpisode();
  }
  return out;
}

std::vector<uint8_t> CatchGame::Render() const {
  std::vector<uint8_t> screen(kSide * kSide, 0);
  for (int y = kPaddleRow; y < kPaddleRow + kPaddleHeight; ++y) {
    for (int x = paddle_x_; x < paddle_x_ + kPaddleWidth; ++x) {
      screen[y * kSide + x] = 160;
    }
  }
  for (int y = ball_y_; y < std::min(ball_y_ + kBall, kSide); ++y) {
    for (int x = ball_x_; x < ball_x_ + kBall; ++x) {
      screen[y * kSide + x] = 255;
    }
  }
  return screen;
}

}  // namespace powersweep
