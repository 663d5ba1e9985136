// AgentGatewayService: the gRPC adapter for AgentGateway.Session. It turns
// one bidirectional stream into Fleet calls (Register, HandleMessage,
// Disconnect) and implements AgentConnection over the stream. No session
// logic lives here. Thread-safe: gRPC runs one handler thread per session.
//
// With `require_certificate` (the controller serves TLS) a session's
// Register is refused before it reaches the Fleet unless the peer's
// verified client certificate names the device id it registers
// (controller/service/peer_identity.h).
#ifndef POWERSWEEP_CONTROLLER_SERVICE_AGENT_GATEWAY_SERVICE_H_
#define POWERSWEEP_CONTROLLER_SERVICE_AGENT_GATEWAY_SERVICE_H_

#include "controller/core/fleet.h"
#include "powersweep/v1/agent_gateway.grpc.pb.h"

namespace powersweep {

class AgentGatewayService final : public v1::AgentGateway::Service {
 public:
  explicit AgentGatewayService(Fleet* fleet, bool require_certificate = false)
      : fleet_(fleet), require_certificate_(require_certificate) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ControllerMessage, v1::AgentMessage>* stream)
      override;

 private:
  Fleet* fleet_;
  bool require_certificate_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_SERVICE_AGENT_GATEWAY_SERVICE_H_
