#include "common/token_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace powersweep {

absl::StatusOr<std::string> CheckToken(const std::string& source,
                                       absl::string_view token) {
  token = absl::StripAsciiWhitespace(token);
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": the token is empty"));
  }
  for (char c : token) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": the token holds whitespace or a control character"));
    }
  }
  if (token.size() < kMinTokenLength) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the token has ", token.size(), " characters, at least ",
        kMinTokenLength, " are needed (e.g. `openssl rand -hex 32`)"));
  }
  return std::string(token);
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& flag,
                                          const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return CheckToken(absl::StrCat(flag, " ", path), text.str());
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Every byte of the longer string is looked at; the lengths take part
  // in the result.
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace powersweep
