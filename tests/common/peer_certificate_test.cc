#include "common/peer_certificate.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;

// An auth context holding the given properties.
class FakeAuthContext : public grpc::AuthContext {
 public:
  explicit FakeAuthContext(std::multimap<std::string, std::string> props,
                           bool authenticated)
      : props_(std::move(props)), authenticated_(authenticated) {}

  bool IsPeerAuthenticated() const override { return authenticated_; }
  std::vector<grpc::string_ref> GetPeerIdentity() const override { return {}; }
  std::string GetPeerIdentityPropertyName() const override { return ""; }
  std::vector<grpc::string_ref> FindPropertyValues(
      const std::string& name) const override {
    std::vector<grpc::string_ref> out;
    auto [lo, hi] = props_.equal_range(name);
    for (auto it = lo; it != hi; ++it) out.emplace_back(it->second);
    return out;
  }
  grpc::AuthPropertyIterator begin() const override { return Iter(); }
  grpc::AuthPropertyIterator end() const override { return Iter(); }
  void AddProperty(const std::string&, const grpc::string_ref&) override {}
  bool SetPeerIdentityPropertyName(const std::string&) override {
    return false;
  }

 private:
  struct Iter : grpc::AuthPropertyIterator {};
  std::multimap<std::string, std::string> props_;
  bool authenticated_;
};

TEST(PeerCertificateTest, SubjectAttributes) {
  EXPECT_THAT(SubjectAttributeValues("CN=orin-01,OU=device,O=powersweep", "OU"),
              ElementsAre("device"));
  EXPECT_THAT(SubjectAttributeValues("CN=a\\,OU=operator,OU=x+OU=y", "ou"),
              ElementsAre("x", "y"));  // the escaped comma is part of CN
  EXPECT_THAT(SubjectAttributeValues("CN=a\\,OU=operator", "OU"),
              ::testing::IsEmpty());
}

TEST(PeerCertificateTest, VerifiedClientCertificate) {
  FakeAuthContext auth({{"transport_security_type", "ssl"},
                        {"x509_pem_cert", "-----BEGIN CERTIFICATE-----"},
                        {"x509_common_name", "orin-01"},
                        {"x509_subject", "CN=orin-01,OU=device,O=powersweep"}},
                       true);
  PeerCertificate peer = PeerCertificateOf(&auth);
  EXPECT_TRUE(peer.tls);
  EXPECT_TRUE(peer.verified);
  EXPECT_EQ(peer.common_name, "orin-01");
  EXPECT_TRUE(peer.HasOrganizationalUnit("device"));
  EXPECT_FALSE(peer.HasOrganizationalUnit("operator"));
  EXPECT_EQ(peer.Describe(), "CN=orin-01, OU=device");
}

TEST(PeerCertificateTest, TlsWithoutClientCertificate) {
  FakeAuthContext auth({{"transport_security_type", "ssl"}}, false);
  PeerCertificate peer = PeerCertificateOf(&auth);
  EXPECT_TRUE(peer.tls);
  EXPECT_FALSE(peer.verified);
  EXPECT_EQ(peer.Describe(), "no client certificate");
}

TEST(PeerCertificateTest, PlaintextHasNoCertificate) {
  EXPECT_FALSE(PeerCertificateOf(nullptr).verified);
  // Even properties that look like a certificate count for nothing
  // without TLS.
  FakeAuthContext auth({{"transport_security_type", "insecure"},
                        {"x509_pem_cert", "x"},
                        {"x509_common_name", "orin-01"}},
                       true);
  EXPECT_FALSE(PeerCertificateOf(&auth).verified);
}

}  // namespace
}  // namespace powersweep
