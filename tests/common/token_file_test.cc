#include "common/token_file.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::string WriteTemp(const std::string& text) {
  char tmpl[] = "/tmp/powersweep-token-XXXXXX";
  const int fd = mkstemp(tmpl);
  close(fd);
  std::ofstream(tmpl) << text;
  return tmpl;
}

TEST(TokenFileTest, ReadsTheTokenWithoutSurroundingWhitespace) {
  const std::string path = WriteTemp("  0123456789abcdef0123\n");
  auto token = ReadTokenFile("--control_token_file", path);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "0123456789abcdef0123");
  std::remove(path.c_str());
}

TEST(TokenFileTest, ErrorsNameTheFlagAndTheFile) {
  auto missing = ReadTokenFile("--token_file", "/nonexistent/token");
  EXPECT_THAT(missing.status().message(),
              HasSubstr("--token_file: cannot read /nonexistent/token"));
  const std::string empty = WriteTemp("\n");
  EXPECT_THAT(ReadTokenFile("--token_file", empty).status().message(),
              HasSubstr("--token_file " + empty + ": the token is empty"));
  const std::string short_token = WriteTemp("abc");
  EXPECT_THAT(ReadTokenFile("--token_file", short_token).status().message(),
              HasSubstr("has 3 characters, at least 16"));
  const std::string spaced = WriteTemp("0123456789 abcdef0123");
  EXPECT_THAT(ReadTokenFile("--token_file", spaced).status().message(),
              HasSubstr("whitespace"));
  for (const auto& p : {empty, short_token, spaced}) std::remove(p.c_str());
}

TEST(TokenFileTest, ConstantTimeEqualsComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("secret-token", "secret-token"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-tokeN"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret-token2"));
  EXPECT_FALSE(ConstantTimeEquals("secret-token", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  // A NUL byte does not end the comparison.
  EXPECT_FALSE(ConstantTimeEquals(absl::string_view("ab\0c", 4),
                                  absl::string_view("ab\0d", 4)));
}

}  // namespace
}  // namespace powersweep
