// The CLI's channel to the controller's Control service: plaintext or TLS
// (--tls_ca, optionally an operator certificate --tls_cert/--tls_key and
// --tls_server_name), and a bearer token (--token_file, else the
// POWERSWEEP_TOKEN environment variable) sent as `authorization: Bearer
// TOKEN` on every call. Thread-safe (no shared state).
#ifndef POWERSWEEP_CONTROLLER_CLI_CONTROL_CHANNEL_H_
#define POWERSWEEP_CONTROLLER_CLI_CONTROL_CHANNEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"

namespace powersweep {

// The environment variable a token may come from.
inline constexpr char kTokenEnvVar[] = "POWERSWEEP_TOKEN";

struct ControlChannelOptions {
  std::string controller;       // --controller host:port
  std::string tls_ca;           // --tls_ca
  std::string tls_cert;         // --tls_cert
  std::string tls_key;          // --tls_key
  std::string tls_server_name;  // --tls_server_name
  std::string token_file;       // --token_file
  std::string env_token;        // $POWERSWEEP_TOKEN ("" when unset)
};

// The bearer token to send ("" for none): --token_file's, else the
// environment's. InvalidArgument naming the flag or variable when it is
// unreadable or malformed (common/token_file.h).
absl::StatusOr<std::string> ResolveToken(const ControlChannelOptions& options);

// InvalidArgument naming the flag for unusable TLS files or token.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeControlChannel(
    const ControlChannelOptions& options);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CLI_CONTROL_CHANNEL_H_
