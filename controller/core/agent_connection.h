// AgentConnection: the controller's handle on one agent session. The gRPC
// adapter implements it over a bidirectional stream; tests use a fake that
// records what was sent. Implementations are thread-safe.
#ifndef POWERSWEEP_CONTROLLER_CORE_AGENT_CONNECTION_H_
#define POWERSWEEP_CONTROLLER_CORE_AGENT_CONNECTION_H_

#include "absl/time/time.h"
#include "powersweep/v1/agent_gateway.pb.h"

namespace powersweep {

class AgentConnection {
 public:
  virtual ~AgentConnection() = default;
  // Sends `msg` to the agent. Returns false if the session is closed.
  virtual bool Send(const ::powersweep::v1::ControllerMessage& msg) = 0;
  // Ends the session from the controller's side (e.g. a silent agent).
  virtual void Close() = 0;
  // How long the write in progress has waited for the peer to read (zero
  // when none is in progress). The liveness check ends a session whose
  // write waits longer than FleetOptions::write_timeout.
  virtual absl::Duration WriteWaiting() const { return absl::ZeroDuration(); }
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_AGENT_CONNECTION_H_
