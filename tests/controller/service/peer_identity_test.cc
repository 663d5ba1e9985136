#include "controller/service/peer_identity.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

PeerCertificate Cert(const std::string& cn) {
  PeerCertificate c;
  c.tls = true;
  c.verified = true;
  c.common_name = cn;
  c.organizational_units = {"device"};
  return c;
}

TEST(PeerIdentityTest, WithoutTlsEveryDeviceIsAcceptedUnverified) {
  auto v = VerifyAgentIdentity(false, PeerCertificate(), "orin-01");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(*v);
}

TEST(PeerIdentityTest, MatchingCertificateIsVerified) {
  auto v = VerifyAgentIdentity(true, Cert("orin-01"), "orin-01");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(*v);
}

TEST(PeerIdentityTest, NoCertificateIsUnauthenticated) {
  PeerCertificate none;
  none.tls = true;
  auto v = VerifyAgentIdentity(true, none, "orin-01");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(v.status().message(), HasSubstr("device 'orin-01'"));
  EXPECT_THAT(v.status().message(), HasSubstr("no client certificate"));
}

TEST(PeerIdentityTest, AnotherDevicesCertificateIsDenied) {
  auto v = VerifyAgentIdentity(true, Cert("orin-02"), "orin-01");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(v.status().message(), HasSubstr("device 'orin-01'"));
  EXPECT_THAT(v.status().message(), HasSubstr("certificate is for 'orin-02'"));
}

TEST(PeerIdentityTest, AnOperatorCertificateCannotRegisterADevice) {
  PeerCertificate op = Cert("orin-01");
  op.organizational_units = {"operator"};
  auto v = VerifyAgentIdentity(true, op, "orin-01");
  EXPECT_EQ(v.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(v.status().message(), HasSubstr("not a device certificate"));
}

TEST(PeerIdentityTest, ComparisonIsExact) {
  EXPECT_FALSE(VerifyAgentIdentity(true, Cert("Orin-01"), "orin-01").ok());
  EXPECT_FALSE(VerifyAgentIdentity(true, Cert("orin-01 "), "orin-01").ok());
  EXPECT_FALSE(VerifyAgentIdentity(true, Cert(""), "").ok());
}

}  // namespace
}  // namespace powersweep
