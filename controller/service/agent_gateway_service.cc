#include "controller/service/agent_gateway_service.h"

#include <memory>
#include <string>

#include "common/grpc_status.h"
#include "common/log.h"
#include "common/peer_certificate.h"
#include "controller/service/peer_identity.h"
#include "controller/service/stream_connection.h"

namespace powersweep {
using Stream = StreamConnection::Stream;

grpc::Status AgentGatewayService::Session(grpc::ServerContext* context,
                                          Stream* stream) {
  v1::AgentMessage first;
  if (!stream->Read(&first)) {
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        "session ended before register");
  }
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the first message of a session must be register");
  }
  const std::string device_id = first.register_().identity().device_id();
  // Identity: decided here, before the Fleet sees the registration.
  absl::StatusOr<bool> identity = VerifyAgentIdentity(
      require_certificate_, PeerCertificateOf(*context), device_id);
  if (!identity.ok()) {
    PS_LOG(WARNING) << "refused registration from " << context->peer()
                    << ": " << identity.status();
    return ToGrpcStatus(identity.status());
  }
  // True: the peer's verified certificate names device_id; false: no TLS.
  const bool verified = *identity;
  PS_LOG(DEBUG) << "device " << device_id << " from " << context->peer()
                << (verified ? ": certificate verified"
                             : ": no TLS, identity not verified");
  auto conn = std::make_shared<StreamConnection>(context, stream);
  absl::Status st = fleet_->Register(first.register_(), conn, verified);
  if (!st.ok()) {
    conn->Stop();
    PS_LOG(WARNING) << "rejected registration from " << context->peer()
                    << ": " << st;
    return ToGrpcStatus(st);
  }
  v1::AgentMessage msg;
  while (stream->Read(&msg)) fleet_->HandleMessage(device_id, conn.get(), msg);
  conn->Stop();
  fleet_->Disconnect(device_id, conn.get());
  return grpc::Status::OK;
}

}  // namespace powersweep
