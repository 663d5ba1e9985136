#include "controller/cli/control_channel.h"

#include <utility>
#include <vector>

#include "common/status_macros.h"
#include "common/tls_credentials.h"
#include "common/token_file.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/client_interceptor.h"

namespace powersweep {
namespace {

namespace exp = ::grpc::experimental;

// Adds `authorization: Bearer TOKEN` to the initial metadata of a call.
// (Call credentials would do the same over TLS only; this also works on a
// plaintext channel to a local controller.)
class BearerTokenInterceptor : public exp::Interceptor {
 public:
  explicit BearerTokenInterceptor(const std::string* token) : token_(token) {}

  void Intercept(exp::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            exp::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization",
                                                 "Bearer " + *token_);
    }
    methods->Proceed();
  }

 private:
  const std::string* token_;
};

class BearerTokenFactory : public exp::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenFactory(std::string token) : token_(std::move(token)) {}

  exp::Interceptor* CreateClientInterceptor(exp::ClientRpcInfo*) override {
    return new BearerTokenInterceptor(&token_);
  }

 private:
  std::string token_;
};

}  // namespace

absl::StatusOr<std::string> ResolveToken(const ControlChannelOptions& options) {
  if (!options.token_file.empty()) {
    return ReadTokenFile("--token_file", options.token_file);
  }
  if (!options.env_token.empty()) {
    return CheckToken(kTokenEnvVar, options.env_token);
  }
  return std::string();
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeControlChannel(
    const ControlChannelOptions& options) {
  std::shared_ptr<grpc::ChannelCredentials> creds =
      grpc::InsecureChannelCredentials();
  grpc::ChannelArguments args;
  const bool tls = !options.tls_ca.empty() || !options.tls_cert.empty() ||
                   !options.tls_key.empty();
  if (tls) {
    PS_ASSIGN_OR_RETURN(
        auto ssl, MakeChannelCredentials(
                      {options.tls_ca, options.tls_cert, options.tls_key}));
    creds = ssl;
    if (!options.tls_server_name.empty()) {
      args.SetSslTargetNameOverride(options.tls_server_name);
    }
  } else if (!options.tls_server_name.empty()) {
    return absl::InvalidArgumentError(
        "--tls_server_name: only used with --tls_ca (TLS)");
  }
  PS_ASSIGN_OR_RETURN(std::string token, ResolveToken(options));
  std::vector<std::unique_ptr<exp::ClientInterceptorFactoryInterface>>
      interceptors;
  if (!token.empty()) {
    interceptors.push_back(std::make_unique<BearerTokenFactory>(token));
  }
  return exp::CreateCustomChannelWithInterceptors(
      options.controller, creds, args, std::move(interceptors));
}

}  // namespace powersweep
