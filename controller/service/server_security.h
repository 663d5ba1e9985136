// The controller's transport security from its flags: TLS credentials
// (--tls_cert, --tls_key, --tls_ca), the Control bearer token
// (--control_token_file), --insecure and --trust_loopback. Refuses a
// plaintext server on an address other machines can reach unless
// --insecure is given. Thread-safe (no shared state).
#ifndef POWERSWEEP_CONTROLLER_SERVICE_SERVER_SECURITY_H_
#define POWERSWEEP_CONTROLLER_SERVICE_SERVER_SECURITY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "controller/service/control_auth.h"
#include "grpcpp/security/server_credentials.h"

namespace powersweep {

struct ServerSecurityFlags {
  std::string listen;              // --listen
  std::string tls_cert;            // --tls_cert
  std::string tls_key;             // --tls_key
  std::string tls_ca;              // --tls_ca
  std::string control_token_file;  // --control_token_file
  bool insecure = false;           // --insecure
  bool trust_loopback = true;      // --trust_loopback
};

struct ServerSecurity {
  std::shared_ptr<grpc::ServerCredentials> credentials;
  bool tls = false;  // agents must present a certificate naming their id
  ControlAuthOptions control;
};

// InvalidArgument naming the flag: partial TLS flags, --insecure with TLS
// flags, unreadable files or token; FailedPrecondition when `listen` is
// not a loopback address and neither TLS nor --insecure is given.
absl::StatusOr<ServerSecurity> MakeServerSecurity(
    const ServerSecurityFlags& flags);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_SERVER_SECURITY_H_
