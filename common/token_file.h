// Bearer tokens: read from a file named by a flag, and compared in
// constant time. Thread-safe (no shared state).
#ifndef POWERSWEEP_COMMON_TOKEN_FILE_H_
#define POWERSWEEP_COMMON_TOKEN_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace powersweep {

// Tokens shorter than this are refused (too easy to guess).
inline constexpr size_t kMinTokenLength = 16;

// The token in `path` (given by `flag`, e.g. "--control_token_file"):
// the file's content without surrounding whitespace. InvalidArgument
// naming the flag and the file when it cannot be read, is empty, holds
// whitespace or control characters inside the token, or is shorter than
// kMinTokenLength.
absl::StatusOr<std::string> ReadTokenFile(const std::string& flag,
                                          const std::string& path);

// Checks a token given another way (e.g. an environment variable named
// `source`) by the rules of ReadTokenFile.
absl::StatusOr<std::string> CheckToken(const std::string& source,
                                       absl::string_view token);

// a == b, in time that depends only on the lengths, not on where they
// differ.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_TOKEN_FILE_H_
