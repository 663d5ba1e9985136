// ControlAuthenticator: who may call the Control service. A call is
// allowed when
//   - the peer presented a verified client certificate with OU=operator
//     (infra/scripts/make-lab-ca.sh DIR operator NAME), or
//   - its metadata has `authorization: Bearer TOKEN` and TOKEN is the
//     controller's token (--control_token_file; compared in constant time),
//   - or no token is configured, the peer is on this machine (loopback)
//     and loopback peers are trusted (--trust_loopback).
// Otherwise it is refused with UNAUTHENTICATED. Thread-safe (immutable).
#ifndef POWERSWEEP_CONTROLLER_SERVICE_CONTROL_AUTH_H_
#define POWERSWEEP_CONTROLLER_SERVICE_CONTROL_AUTH_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/peer_certificate.h"
#include "grpcpp/server_context.h"

namespace powersweep {

// The OU of operator certificates.
inline constexpr char kOperatorUnit[] = "operator";

struct ControlAuthOptions {
  std::string token;  // empty: no bearer token accepted
  bool trust_loopback = true;
};

// What a Control call presents.
struct ControlCaller {
  PeerCertificate certificate;
  std::string peer;                          // ServerContext::peer()
  std::optional<std::string> authorization;  // the metadata value, if any
};

class ControlAuthenticator {
 public:
  explicit ControlAuthenticator(ControlAuthOptions options)
      : options_(std::move(options)) {}

  absl::Status Check(const ControlCaller& caller) const;
  // The same for a gRPC call.
  absl::Status Check(const grpc::ServerContext& context) const;

 private:
  ControlAuthOptions options_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_CONTROL_AUTH_H_
