// TLS credentials for powersweep's gRPC servers and channels, from PEM
// files named by command-line flags. Every error names the flag and the
// file. Thread-safe (no shared state).
#ifndef POWERSWEEP_COMMON_TLS_CREDENTIALS_H_
#define POWERSWEEP_COMMON_TLS_CREDENTIALS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"

namespace powersweep {

// What a PEM file must hold.
enum class PemKind { kCertificate, kPrivateKey };

// Reads the PEM file `path` given by `flag` (e.g. "--tls_cert").
// InvalidArgument "--tls_cert: cannot read FILE: REASON" when it cannot be
// read, and "--tls_cert: FILE holds no PEM certificate (-----BEGIN
// CERTIFICATE-----)" when it is empty, not PEM or the other kind (a key
// given as the certificate).
absl::StatusOr<std::string> ReadPemFile(const std::string& flag,
                                        const std::string& path, PemKind kind);

// The files of a server: its certificate chain and key, and the CA that
// signed the client certificates it accepts.
struct ServerTlsFiles {
  std::string cert;  // --tls_cert
  std::string key;   // --tls_key
  std::string ca;    // --tls_ca
};

// Server credentials that request a client certificate and verify it
// against `ca` when one is presented (GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_
// AND_VERIFY), so clients without one (a CLI with a bearer token) still
// connect. All three files are required.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files);

// The files of a client: the CA that signed the server's certificate and,
// optionally, the client's own certificate and key (both or neither).
struct ChannelTlsFiles {
  std::string ca;    // --tls_ca
  std::string cert;  // --tls_cert (optional)
  std::string key;   // --tls_key (optional)
};

// SSL channel credentials, or InvalidArgument naming the flag. With no
// --tls_ca but a --tls_cert or --tls_key, an error too (a client
// certificate is only sent over TLS).
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>>
MakeChannelCredentials(const ChannelTlsFiles& files);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_TLS_CREDENTIALS_H_
