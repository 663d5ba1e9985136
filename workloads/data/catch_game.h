// CatchGame: the small deterministic game whose replay memory
// `gen-dataset --format frames` writes for dqn: a ball falls from the top
// of an 84x84 grey screen, bouncing off the side walls, and a paddle at the
// bottom must catch it.
//
//   screen   84x84 pixels, background 0
//   ball     4x4 pixels of 255; starts at row 0, at a column and with a
//            horizontal speed of -2..+2 pixels per frame drawn from the
//            game's generator; falls 3 pixels per frame
//   paddle   16x4 pixels of 160 on rows 78..81; actions: 0 stay, 1 left,
//            2 right, moving it 4 pixels (clamped to the screen)
//   reward   when the ball reaches the paddle's row: +1 if it overlaps
//            the paddle, -1 if not; that frame ends the episode (done) and
//            the next frame starts a new one
//
// The game is a pure function of its seed and the actions taken. Not
// thread-safe; one instance per thread.
#ifndef POWERSWEEP_WORKLOADS_DATA_CATCH_GAME_H_
#define POWERSWEEP_WORKLOADS_DATA_CATCH_GAME_H_

#include <cstdint>
#include <random>
#include <vector>

namespace powersweep {

class CatchGame {
 public:
  static constexpr int kSide = 84;
  static constexpr int kActions = 3;
  static constexpr int kBall = 4;
  static constexpr int kPaddleWidth = 16;
  static constexpr int kPaddleRow = 78;
  static constexpr int kPaddleHeight = 4;

  explicit CatchGame(uint64_t seed);

  struct StepOutcome {
    int reward = 0;
    bool done = false;
  };
  // Applies `action` (0..2) and advances one frame. After a done step the
  // game has already started the next episode.
  StepOutcome Step(int action);
  // The current screen, kSide x kSide bytes, row-major.
  std::vector<uint8_t> Render() const;
  // The column of the ball's and the paddle's left edges (for policies).
  int ball_x() const { return ball_x_; }
  int paddle_x() const { return paddle_x_; }

 private:
  void NewEpisode();

  std::mt19937_64 rng_;
  int ball_x_ = 0;
  int ball_y_ = 0;
  int ball_dx_ = 0;
  int paddle_x_ = (kSide - kPaddleWidth) / 2;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_CATCH_GAME_H_
