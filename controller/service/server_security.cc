#include "controller/service/server_security.h"

#include "absl/strings/str_cat.h"
#include "common/peer_address.h"
#include "common/status_macros.h"
#include "common/tls_credentials.h"
#include "common/token_file.h"
#include "grpcpp/security/server_credentials.h"

namespace powersweep {

absl::StatusOr<ServerSecurity> MakeServerSecurity(
    const ServerSecurityFlags& flags) {
  ServerSecurity out;
  out.control.trust_loopback = flags.trust_loopback;
  if (!flags.control_token_file.empty()) {
    PS_ASSIGN_OR_RETURN(
        std::string token,
        ReadTokenFile("--control_token_file", flags.control_token_file));
    out.control.token = token;
  }

  const bool any_tls = !flags.tls_cert.empty() || !flags.tls_key.empty() ||
                       !flags.tls_ca.empty();
  if (any_tls && flags.insecure) {
    return absl::InvalidArgumentError(
        "--insecure: cannot be combined with --tls_cert, --tls_key or "
        "--tls_ca");
  }
  if (any_tls) {
    for (const auto& [flag, value] :
         {std::pair<const char*, const std::string*>{"--tls_cert",
                                                     &flags.tls_cert},
          {"--tls_key", &flags.tls_key},
          {"--tls_ca", &flags.tls_ca}}) {
      if (value->empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag,
                         ": required with the other TLS flags (--tls_cert, "
                         "--tls_key and --tls_ca go together)"));
      }
    }
    ServerTlsFiles files{flags.tls_cert, flags.tls_key, flags.tls_ca};
    PS_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> creds,
                        MakeServerCredentials(files));
    out.credentials = creds;
    out.tls = true;
    return out;
  }
  if (!flags.insecure && !IsLoopbackListenAddress(flags.listen)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--listen=", flags.listen,
        ": refusing to serve plaintext on an address other machines can "
        "reach; give --tls_cert, --tls_key and --tls_ca, or --insecure to "
        "accept unauthenticated agents"));
  }
  out.credentials = grpc::InsecureServerCredentials();
  return out;
}

}  // namespace powersweep
