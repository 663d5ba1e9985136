// The frames format: a DQN replay memory on disk, one file per split, as
// `powersweep-workload gen-dataset --format frames` writes it and the
// frames data set (frames_dataset.h) reads it.
//
//   DIR/train.frames, DIR/test.frames
//
// Each file is a 40-byte header and `count` fixed-size records, all
// integers little-endian:
//   offset  size  field
//   0       8     magic "PSFRAME1"
//   8       4     u32 height of a frame in pixels (84 for dqn)
//   12      4     u32 width (84 for dqn)
//   16      4     u32 stack: frames of a state (4 for dqn)
//   20      4     u32 actions of the game (2..255)
//   24      8     u64 count of transitions (>= 1)
//   32      8     reserved, 0
// Record i (at 40 + i * (4 + (stack + 1) * height * width)):
//   u8 action (0..actions-1), i8 reward (-1, 0 or +1), u8 done (0 or 1),
//   u8 reserved 0, then stack + 1 grey frames of height x width u8 pixels,
//   row-major, oldest first: frames 0..stack-1 are the state the action
//   was taken in, frames 1..stack the state it led to. done = 1 marks the
//   end of an episode (the next state is terminal: no bootstrap).
//
// A record holds its 5 frames itself (a replay memory in memory shares
// them between consecutive transitions); the redundancy keeps every record
// independent, so samples are read in any order.
//
// Stateless; thread-safe.
#ifndef POWERSWEEP_WORKLOADS_DATA_FRAMES_FORMAT_H_
#define POWERSWEEP_WORKLOADS_DATA_FRAMES_FORMAT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "workloads/data/dataset.h"

namespace powersweep {

inline constexpr char kFramesMagic[] = "PSFRAME1";  // 8 bytes, no NUL
inline constexpr int64_t kFramesHeaderBytes = 40;
inline constexpr int64_t kFramesRecordPrefix = 4;

struct FramesHeader {
  int64_t height = 0;
  int64_t width = 0;
  int64_t stack = 0;
  int64_t actions = 0;
  int64_t count = 0;
  int64_t frame_bytes() const { return height * width; }
  int64_t record_bytes() const {
    return kFramesRecordPrefix + (stack + 1) * frame_bytes();
  }
};

// A transition's action, reward and end flag.
struct Transition {
  int64_t action = 0;
  int reward = 0;  // -1, 0 or +1
  bool done = false;
};

// The label a frames data set gives a transition of a game of `actions`
// actions: action + actions * (2 * (reward + 1) + done), in
// 0..6 * actions - 1; and back (codes outside that range are the caller's
// error).
int64_t EncodeTransition(const Transition& t, int64_t actions);
Transition DecodeTransition(int64_t code, int64_t actions);

// "train.frames" or "test.frames".
std::string FramesFileName(Split split);

// The 40 header bytes of `h`.
std::string EncodeFramesHeader(const FramesHeader& h);

// The header of `bytes`, the whole content of `path` (named in errors):
// kDataLoss when the file is shorter than a header, the magic is wrong, a
// dimension is 0 or too large (frames up to 4096 x 4096, stack 1..64,
// actions 2..255, count >= 1), or the size is not 40 + count x the record
// size.
absl::StatusOr<FramesHeader> ParseFramesHeader(absl::string_view bytes,
                                               const std::string& path);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_FRAMES_FORMAT_H_
