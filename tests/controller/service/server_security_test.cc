#include "controller/service/server_security.h"

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

ServerSecurityFlags Flags(const std::string& listen) {
  ServerSecurityFlags f;
  f.listen = listen;
  return f;
}

TEST(ServerSecurityTest, PlaintextOnLoopbackIsAllowed) {
  auto s = MakeServerSecurity(Flags("127.0.0.1:0"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->tls);
  EXPECT_TRUE(s->control.trust_loopback);
  EXPECT_TRUE(s->control.token.empty());
}

TEST(ServerSecurityTest, PlaintextOnAReachableAddressNeedsInsecure) {
  auto s = MakeServerSecurity(Flags("0.0.0.0:7070"));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.status().message(), HasSubstr("--listen=0.0.0.0:7070"));
  EXPECT_THAT(s.status().message(), HasSubstr("--insecure"));
  ServerSecurityFlags f = Flags("0.0.0.0:7070");
  f.insecure = true;
  EXPECT_TRUE(MakeServerSecurity(f).ok());
}

TEST(ServerSecurityTest, TlsFlagsGoTogether) {
  ServerSecurityFlags f = Flags("0.0.0.0:7070");
  f.tls_cert = "/x/controller.crt";
  auto s = MakeServerSecurity(f);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("--tls_key: required"));
  f.tls_key = "/x/controller.key";
  EXPECT_THAT(MakeServerSecurity(f).status().message(),
              HasSubstr("--tls_ca: required"));
  f.tls_ca = "/x/ca.crt";
  EXPECT_THAT(MakeServerSecurity(f).status().message(),
              HasSubstr("--tls_cert: cannot read /x/controller.crt"));
  f.insecure = true;
  EXPECT_THAT(MakeServerSecurity(f).status().message(),
              HasSubstr("--insecure: cannot be combined"));
}

TEST(ServerSecurityTest, TokenFileIsRead) {
  char tmpl[] = "/tmp/powersweep-token-XXXXXX";
  close(mkstemp(tmpl));
  std::ofstream(tmpl) << "0123456789abcdef0123456789abcdef\n";
  ServerSecurityFlags f = Flags("127.0.0.1:0");
  f.control_token_file = tmpl;
  f.trust_loopback = false;
  auto s = MakeServerSecurity(f);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->control.token, "0123456789abcdef0123456789abcdef");
  EXPECT_FALSE(s->control.trust_loopback);
  std::remove(tmpl);
  EXPECT_THAT(MakeServerSecurity(f).status().message(),
              HasSubstr("--control_token_file: cannot read"));
}

}  // namespace
}  // namespace powersweep
