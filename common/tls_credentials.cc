#include "common/tls_credentials.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace powersweep {

absl::StatusOr<std::string> ReadPemFile(const std::string& flag,
                                        const std::string& path, PemKind kind) {
  if (path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": no file given"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read ", path, ": read error"));
  }
  std::string pem = text.str();
  const bool cert = kind == PemKind::kCertificate;
  // "-----BEGIN CERTIFICATE-----"; keys: PRIVATE KEY, EC/RSA PRIVATE KEY.
  const bool found =
      absl::StrContains(pem, "-----BEGIN ") &&
      absl::StrContains(pem, cert ? "CERTIFICATE-----" : "PRIVATE KEY-----");
  if (!found) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": ", path, " holds no PEM ",
                     cert ? "certificate (-----BEGIN CERTIFICATE-----)"
                          : "private key (-----BEGIN PRIVATE KEY-----)"));
  }
  return pem;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (files.cert.empty() || files.key.empty() || files.ca.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert, --tls_key, --tls_ca: TLS needs all three (the server's "
        "certificate and key, and the CA of the client certificates)");
  }
  PS_ASSIGN_OR_RETURN(std::string cert, ReadPemFile("--tls_cert", files.cert,
                                                    PemKind::kCertificate));
  PS_ASSIGN_OR_RETURN(std::string key, ReadPemFile("--tls_key", files.key,
                                                   PemKind::kPrivateKey));
  PS_ASSIGN_OR_RETURN(std::string ca,
                      ReadPemFile("--tls_ca", files.ca, PemKind::kCertificate));

  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = ca;
  options.pem_key_cert_pairs.push_back({key, cert});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeChannelCredentials(const ChannelTlsFiles& files) {
  if (files.ca.empty()) {
    if (!files.cert.empty() || !files.key.empty()) {
      return absl::InvalidArgumentError(
          "--tls_ca: required with --tls_cert/--tls_key (a client "
          "certificate is only sent over TLS)");
    }
    return absl::InvalidArgumentError("--tls_ca: no file given");
  }
  if (files.cert.empty() != files.key.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        files.cert.empty() ? "--tls_cert" : "--tls_key", ": required with ",
        files.cert.empty() ? "--tls_key" : "--tls_cert",
        " (a client certificate needs both)"));
  }
  grpc::SslCredentialsOptions options;
  PS_ASSIGN_OR_RETURN(std::string ca,
                      ReadPemFile("--tls_ca", files.ca, PemKind::kCertificate));
  options.pem_root_certs = ca;
  if (!files.cert.empty()) {
    PS_ASSIGN_OR_RETURN(std::string cert, ReadPemFile("--tls_cert", files.cert,
                                                      PemKind::kCertificate));
    PS_ASSIGN_OR_RETURN(std::string key, ReadPemFile("--tls_key", files.key,
                                                     PemKind::kPrivateKey));
    options.pem_cert_chain = cert;
    options.pem_private_key = key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace powersweep
