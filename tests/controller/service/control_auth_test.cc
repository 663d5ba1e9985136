#include "controller/service/control_auth.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

constexpr char kToken[] = "0123456789abcdef0123456789abcdef";
constexpr char kRemote[] = "ipv4:10.0.0.9:50000";
constexpr char kLocal[] = "ipv4:127.0.0.1:50000";

ControlCaller Caller(const std::string& peer,
                     std::optional<std::string> authorization = std::nullopt) {
  ControlCaller c;
  c.peer = peer;
  c.authorization = std::move(authorization);
  return c;
}

PeerCertificate Cert(const std::string& cn, const std::string& ou) {
  PeerCertificate c;
  c.tls = c.verified = true;
  c.common_name = cn;
  c.organizational_units = {ou};
  return c;
}

TEST(ControlAuthTest, OperatorCertificateIsEnough) {
  ControlAuthenticator auth({kToken, false});
  ControlCaller c = Caller(kRemote);
  c.certificate = Cert("alice", "operator");
  EXPECT_TRUE(auth.Check(c).ok());
}

TEST(ControlAuthTest, DeviceCertificateIsNotAnOperator) {
  ControlAuthenticator auth({kToken, false});
  ControlCaller c = Caller(kRemote);
  c.certificate = Cert("orin-01", "device");
  absl::Status st = auth.Check(c);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(st.message(),
              HasSubstr("needs a bearer token or an operator certificate"));
  EXPECT_THAT(st.message(), HasSubstr("CN=orin-01, OU=device"));
}

TEST(ControlAuthTest, MatchingBearerTokenIsEnough) {
  ControlAuthenticator auth({kToken, false});
  EXPECT_TRUE(
      auth.Check(Caller(kRemote, std::string("Bearer ") + kToken)).ok());
  EXPECT_TRUE(
      auth.Check(Caller(kRemote, std::string("bearer ") + kToken)).ok());
}

TEST(ControlAuthTest, WrongOrMissingTokenIsRefused) {
  ControlAuthenticator auth({kToken, false});
  absl::Status wrong = auth.Check(Caller(kRemote, "Bearer nope"));
  EXPECT_EQ(wrong.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(wrong.message(), HasSubstr("does not match"));
  absl::Status prefix = auth.Check(
      Caller(kRemote, std::string("Bearer ") + std::string(kToken, 16)));
  EXPECT_EQ(prefix.code(), absl::StatusCode::kUnauthenticated);
  absl::Status scheme = auth.Check(Caller(kRemote, kToken));
  EXPECT_THAT(scheme.message(), HasSubstr("not 'Bearer TOKEN'"));
  absl::Status none = auth.Check(Caller(kRemote));
  EXPECT_THAT(none.message(), HasSubstr("no bearer token was sent"));
}

TEST(ControlAuthTest, LoopbackIsTrustedOnlyWithoutTokenAndWhenAllowed) {
  // No token configured, trust_loopback: a local caller needs nothing.
  EXPECT_TRUE(ControlAuthenticator({"", true}).Check(Caller(kLocal)).ok());
  EXPECT_TRUE(
      ControlAuthenticator({"", true}).Check(Caller("ipv6:[::1]:5000")).ok());
  // ... even with a stray token it does not need.
  EXPECT_TRUE(
      ControlAuthenticator({"", true}).Check(Caller(kLocal, "Bearer x")).ok());
  // A remote caller is never trusted for its address.
  EXPECT_FALSE(ControlAuthenticator({"", true}).Check(Caller(kRemote)).ok());
  // --trust_loopback=false: local callers are treated as remote.
  EXPECT_FALSE(ControlAuthenticator({"", false}).Check(Caller(kLocal)).ok());
  // A configured token is required from local callers too.
  EXPECT_FALSE(ControlAuthenticator({kToken, true}).Check(Caller(kLocal)).ok());
  EXPECT_TRUE(ControlAuthenticator({kToken, true})
                  .Check(Caller(kLocal, std::string("Bearer ") + kToken))
                  .ok());
}

TEST(ControlAuthTest, NoTokenConfiguredAcceptsNoToken) {
  absl::Status st =
      ControlAuthenticator({"", false}).Check(Caller(kRemote, "Bearer "));
  EXPECT_EQ(st.code(), absl::StatusCode::kUnauthenticated);
  st = ControlAuthenticator({"", false}).Check(Caller(kRemote, "Bearer abc"));
  EXPECT_THAT(st.message(), HasSubstr("no --control_token_file"));
}

}  // namespace
}  // namespace powersweep
