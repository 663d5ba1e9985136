// Fleet: the controller's session logic, free of gRPC. It keeps the
// registry of connected agents, hands pending runs to idle agents (one run
// per agent at a time), ingests their data batches idempotently and
// acknowledges each one only after it is committed, and fails the runs of
// agents that disconnect or fall silent.
//
// Thread-safe: every public method may be called from any thread (one
// gRPC thread per agent session plus the liveness thread and Control
// handlers). Internally the registry has its own mutex, never held across
// a call out; a second mutex serializes decisions about run states (lease,
// start, finish, loss) so a run is leased to at most one agent and an agent
// holds at most one run. Store calls happen under that second mutex;
// AgentConnection::Close is never called under a lock, and Send only for
// Registered. AgentConnection implementations must not call back into
// Fleet from Send or Close.
//
// Lost runs: a RUNNING run whose agent disconnects, falls silent or
// restarts is FAILED with the reason and re-queued while its attempt is
// within the sweep's max_retries. A LEASED run (the agent never reported
// RunStarted) goes straight back to PENDING without using an attempt: the
// workload never ran, so nothing was measured or lost.
//
// Batches are stored only for the run the sending device currently holds;
// batches of a run the controller already gave up on are acknowledged
// without being stored, so the agent drops them from its spool.
#ifndef POWERSWEEP_CONTROLLER_CORE_FLEET_H_
#define POWERSWEEP_CONTROLLER_CORE_FLEET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "controller/core/agent_connection.h"
#include "powersweep/v1/powersweep.pb.h"
#include "storage/store.h"

namespace powersweep {

struct FleetOptions {
  // Agents send a heartbeat this often; silent for 3 intervals = gone.
  absl::Duration heartbeat_interval = absl::Seconds(2);
};

class Fleet {
 public:
  Fleet(Store* store, Clock* clock, FleetOptions options);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // A session's first message. Records the device in the store, replaces
  // an older session of the same device_id (closing it), sends Registered,
  // reconciles runs the store holds as active for this device (kept if
  // reg.active_run_id names it, failed otherwise: "agent X restarted; the
  // run was lost"), sends CancelRun if reg.active_run_id names a run it no
  // longer holds, then dispatches.
  // InvalidArgument if the identity lacks device_id or device_class.
  absl::Status Register(const v1::Register& reg,
                        std::shared_ptr<AgentConnection> conn);

  // Every later message of the session of `device_id`. Batches and
  // RunFinished are committed then acknowledged; errors are logged and the
  // message is not acknowledged (the agent resends it).
  void HandleMessage(const std::string& device_id, const v1::AgentMessage& msg);

  // The session `conn` of `device_id` ended. No-op if a newer session has
  // replaced it. Fails the device's active run ("agent X disconnected
  // during the run") and re-queues it if the sweep allows retries (a LEASED
  // run goes back to PENDING), then dispatches to the remaining agents.
  void Disconnect(const std::string& device_id, const AgentConnection* conn);

  // Cancels the runs of `sweep_id` that have not ended (or only `run_id`
  // when it is not 0), with `reason`: each ends CANCELLED in the store at
  // once; a leased or running one's agent gets CancelRun, stops the
  // workload (a container is removed) and stays busy until it reports the
  // run finished; what it sent before is kept. Returns how many runs were
  // cancelled. NotFound for an unknown sweep or a run not in it.
  absl::StatusOr<int> CancelRuns(int64_t sweep_id, int64_t run_id,
                                 const std::string& reason);

  // Assigns pending runs to idle connected agents that can serve them.
  void Dispatch();

  // Closes and disconnects agents silent for 3 heartbeat intervals.
  void CheckLiveness();

  // Every device the store knows, with connected / current_run_id filled.
  absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices();

  // Identities and capabilities of the connected agents.
  std::vector<v1::DeviceStatus> ConnectedDevices();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_FLEET_H_
