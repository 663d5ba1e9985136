#include "controller/service/agent_gateway_service.h"

#include <memory>
#include <string>

#include "common/grpc_status.h"
#include "common/log.h"
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
  auto conn = std::make_shared<StreamConnection>(context, stream);
  const std::string device_id = first.register_().identity().device_id();
  absl::Status st = fleet_->Register(first.register_(), conn);
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
