// The verified client certificate of a gRPC peer, read from the server
// call's auth context. The controller serves TLS with
// GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY, so a certificate that
// shows in the auth context has been verified against --tls_ca; a peer
// without one (plaintext, or TLS without a client certificate) has none.
// Thread-safe (no shared state).
#ifndef POWERSWEEP_COMMON_PEER_CERTIFICATE_H_
#define POWERSWEEP_COMMON_PEER_CERTIFICATE_H_

#include <string>
#include <vector>

#include "grpcpp/security/auth_context.h"
#include "grpcpp/server_context.h"

namespace powersweep {

struct PeerCertificate {
  bool tls = false;         // the connection is TLS
  bool verified = false;    // a client certificate was presented and verified
  std::string common_name;  // CN of the subject
  std::vector<std::string> organizational_units;  // OU values of the subject

  bool HasOrganizationalUnit(const std::string& ou) const;
  // "CN=orin-01, OU=device" or "no client certificate", for messages.
  std::string Describe() const;
};

// From an auth context (null: a plaintext peer).
PeerCertificate PeerCertificateOf(const grpc::AuthContext* auth);
PeerCertificate PeerCertificateOf(const grpc::ServerContext& context);

// The values of attribute `key` (e.g. "OU") in an RFC 2253 subject string
// as gRPC reports it ("CN=orin-01,OU=device,O=powersweep"), with escapes
// ("\,") removed.
std::vector<std::string> SubjectAttributeValues(const std::string& subject,
                                                const std::string& key);

}  // namespace powersweep

#endif  // POWERSWEEP_COMMON_PEER_CERTIFICATE_H_
