// The identity decision for an agent's AgentGateway session, taken on its
// Register before Fleet::Register is called. With TLS, the device id an
// agent claims must be the CN of the client certificate it presented
// (verified against --tls_ca): a device can only register as itself.
// Pure function; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_SERVICE_PEER_IDENTITY_H_
#define POWERSWEEP_CONTROLLER_SERVICE_PEER_IDENTITY_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/peer_certificate.h"

namespace powersweep {

// `require_certificate`: the controller serves TLS. Returns
//   true  - the peer's verified certificate names `device_id` (CN);
//   false - no TLS (--insecure or loopback): accepted, not verified;
//   Unauthenticated - TLS, but the peer presented no client certificate;
//   PermissionDenied - the certificate's CN is not `device_id`.
// Errors name the device id and the certificate's name.
absl::StatusOr<bool> VerifyAgentIdentity(bool require_certificate,
                                         const PeerCertificate& peer,
                                         const std::string& device_id);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_PEER_IDENTITY_H_
