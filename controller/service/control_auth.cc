#include "controller/service/control_auth.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/peer_address.h"
#include "common/token_file.h"

namespace powersweep {

absl::Status ControlAuthenticator::Check(const ControlCaller& caller) const {
  if (caller.certificate.verified &&
      caller.certificate.HasOrganizationalUnit(kOperatorUnit)) {
    return absl::OkStatus();
  }
  if (options_.token.empty() && options_.trust_loopback &&
      IsLoopbackPeer(caller.peer)) {
    return absl::OkStatus();
  }
  std::string why = "no bearer token was sent";
  if (caller.authorization.has_value()) {
    absl::string_view value = *caller.authorization;
    // RFC 6750: the scheme is case-insensitive.
    constexpr absl::string_view kScheme = "bearer ";
    if (value.size() > kScheme.size() &&
        absl::EqualsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
      value.remove_prefix(kScheme.size());
      if (!options_.token.empty() &&
          ConstantTimeEquals(value, options_.token)) {
        return absl::OkStatus();
      }
      why = options_.token.empty()
                ? "the controller accepts no bearer token (it has no "
                  "--control_token_file)"
                : "the bearer token does not match";
    } else {
      why = "the authorization metadata is not 'Bearer TOKEN'";
    }
  }
  if (caller.certificate.verified) {
    absl::StrAppend(&why, "; the client certificate (",
                    caller.certificate.Describe(), ") is not an operator's");
  }
  return absl::UnauthenticatedError(absl::StrCat(
      "Control needs a bearer token or an operator certificate (", why, ")"));
}

absl::Status ControlAuthenticator::Check(
    const grpc::ServerContext& context) const {
  ControlCaller caller;
  caller.certificate = PeerCertificateOf(context);
  caller.peer = context.peer();
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it != metadata.end()) {
    caller.authorization = std::string(it->second.data(), it->second.size());
  }
  return Check(caller);
}

}  // namespace powersweep
