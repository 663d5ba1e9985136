// Shortening a list of validation problems for the user. A sweep with
// thousands of problems (one line each) would give an error longer than a
// gRPC status should carry and than a terminal can show, so the submitter
// keeps the first lines and says how many more there are.
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SWEEP_PROBLEM_LIST_H_
#define POWERSWEEP_CONTROLLER_SWEEP_PROBLEM_LIST_H_

#include <cstddef>

#include "absl/status/status.h"

namespace powersweep {

inline constexpr size_t kMaxProblemLines = 50;
// A longer line is cut and ends with "...". Long enough for any list of
// known names a problem gives (xavier-agx's 22 presets are ~400 chars):
// only pathological input is cut.
inline constexpr size_t kMaxProblemLineChars = 2000;

// `status` with its message (one problem per line) cut to `max_lines`
// lines, each at most kMaxProblemLineChars, then a line
// "... and N more problems". The code is kept; OK stays OK.
absl::Status LimitProblemLines(const absl::Status& status,
                               size_t max_lines = kMaxProblemLines);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SWEEP_PROBLEM_LIST_H_
