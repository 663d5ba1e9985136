#include "controller/service/peer_identity.h"

#include "absl/strings/str_cat.h"

namespace powersweep {

absl::StatusOr<bool> VerifyAgentIdentity(bool require_certificate,
                                         const PeerCertificate& peer,
                                         const std::string& device_id) {
  if (!require_certificate) return false;
  if (!peer.verified) {
    return absl::UnauthenticatedError(absl::StrCat(
        "device '", device_id,
        "': the controller requires a client certificate whose CN is the "
        "device id; the agent presented ",
        peer.Describe(), " (give the agent --tls_cert and --tls_key)"));
  }
  if (peer.common_name.empty() || peer.common_name != device_id) {
    return absl::PermissionDeniedError(absl::StrCat(
        "device '", device_id, "': the client certificate is for '",
        peer.common_name, "' (", peer.Describe(),
        "); an agent may only register as the device its certificate names"));
  }
  if (!peer.HasOrganizationalUnit("device")) {
    return absl::PermissionDeniedError(absl::StrCat(
        "device '", device_id, "': the client certificate (", peer.Describe(),
        ") is not a device certificate (OU=device); make one with "
        "infra/scripts/make-lab-ca.sh DIR device ", device_id));
  }
  return true;
}

}  // namespace powersweep
