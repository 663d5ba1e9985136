#include "common/tls_credentials.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

// A temp dir with a lab CA made by infra/scripts/make-lab-ca.sh.
class TlsCredentialsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/powersweep-tls-XXXXXX";
    dir_ = new std::string(mkdtemp(tmpl));
    const std::string script =
        std::string(POWERSWEEP_SOURCE_DIR) + "/infra/scripts/make-lab-ca.sh";
    const std::string lab = *dir_ + "/lab";
    ASSERT_EQ(std::system((script + " " + lab + " controller >/dev/null && " +
                           script + " " + lab + " device orin-01 >/dev/null")
                              .c_str()),
              0);
  }
  static void TearDownTestSuite() {
    std::system(("rm -rf " + *dir_).c_str());
    delete dir_;
  }
  static std::string Lab(const std::string& file) {
    return *dir_ + "/lab/" + file;
  }
  static std::string Write(const std::string& name, const std::string& text) {
    const std::string path = *dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  static std::string* dir_;
};
std::string* TlsCredentialsTest::dir_ = nullptr;

TEST_F(TlsCredentialsTest, MissingFileNamesTheFlagAndTheFile) {
  auto pem =
      ReadPemFile("--tls_cert", "/nonexistent/x.crt", PemKind::kCertificate);
  EXPECT_EQ(pem.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pem.status().message(),
              HasSubstr("--tls_cert: cannot read /nonexistent/x.crt: No such"));
}

TEST_F(TlsCredentialsTest, FileWithoutPemIsRefused) {
  const std::string path = Write("junk.crt", "not a certificate\n");
  auto pem = ReadPemFile("--tls_ca", path, PemKind::kCertificate);
  EXPECT_THAT(pem.status().message(),
              HasSubstr("--tls_ca: " + path + " holds no PEM certificate"));
  const std::string empty = Write("empty.key", "");
  EXPECT_THAT(
      ReadPemFile("--tls_key", empty, PemKind::kPrivateKey).status().message(),
      HasSubstr("--tls_key: " + empty + " holds no PEM private key"));
}

TEST_F(TlsCredentialsTest, KeyGivenAsCertificateIsRefused) {
  auto pem =
      ReadPemFile("--tls_cert", Lab("controller.key"), PemKind::kCertificate);
  EXPECT_THAT(pem.status().message(), HasSubstr("holds no PEM certificate"));
  auto key =
      ReadPemFile("--tls_key", Lab("controller.crt"), PemKind::kPrivateKey);
  EXPECT_THAT(key.status().message(), HasSubstr("holds no PEM private key"));
}

TEST_F(TlsCredentialsTest, ServerNeedsAllThreeFiles) {
  auto creds =
      MakeServerCredentials({Lab("controller.crt"), Lab("controller.key"), ""});
  EXPECT_EQ(creds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(creds.status().message(), HasSubstr("--tls_ca"));
  auto bad_ca = MakeServerCredentials(
      {Lab("controller.crt"), Lab("controller.key"), Lab("missing.crt")});
  EXPECT_THAT(bad_ca.status().message(), HasSubstr("--tls_ca: cannot read"));
  auto ok = MakeServerCredentials(
      {Lab("controller.crt"), Lab("controller.key"), Lab("ca.crt")});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_NE(*ok, nullptr);
}

TEST_F(TlsCredentialsTest, ChannelCertificateNeedsKeyAndCa) {
  auto no_ca = MakeChannelCredentials(
      {"", Lab("device-orin-01.crt"), Lab("device-orin-01.key")});
  EXPECT_THAT(no_ca.status().message(),
              HasSubstr("--tls_ca: required with --tls_cert"));
  auto no_key =
      MakeChannelCredentials({Lab("ca.crt"), Lab("device-orin-01.crt"), ""});
  EXPECT_THAT(no_key.status().message(),
              HasSubstr("--tls_key: required with --tls_cert"));
  EXPECT_TRUE(MakeChannelCredentials({Lab("ca.crt"), "", ""}).ok());
  EXPECT_TRUE(MakeChannelCredentials({Lab("ca.crt"), Lab("device-orin-01.crt"),
                                      Lab("device-orin-01.key")})
                  .ok());
}

}  // namespace
}  // namespace powersweep
