// Espeak: synthesises an utterance to a WAV file with Debian's espeak-ng
// (package espeak-ng), run as a child process: posix_spawn of the
// executable found on PATH with an argument vector (no shell), stdout to
// /dev/null, stderr captured for the error message. (The agent's
// process helpers, agent/runtime/docker/subprocess.h, live in the agent
// library, which the workload binary does not link.)
//
// espeak-ng writes 16-bit mono PCM at 22,050 Hz.
//
// FindEspeak: the path of espeak-ng on PATH, or kFailedPrecondition saying
// to install the espeak-ng package. Speak: kInvalidArgument for an empty
// text or a text starting with '-'; kInternal when the process cannot be
// started, is killed or exits non-zero (its last stderr line quoted).
// Thread-safe (no shared state).
#ifndef POWERSWEEP_WORKLOADS_DATA_ESPEAK_H_
#define POWERSWEEP_WORKLOADS_DATA_ESPEAK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace powersweep {

struct SpeakOptions {
  std::string voice = "en-us";  // -v: a voice, optionally "+variant"
  int words_per_minute = 175;   // -s: 80..450
  int pitch = 50;               // -p: 0..99
};

absl::StatusOr<std::string> FindEspeak();

absl::Status Speak(const std::string& espeak, const std::string& text,
                   const SpeakOptions& options, const std::string& wav_path);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_DATA_ESPEAK_H_
