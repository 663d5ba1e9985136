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
// Registered. AgentConnection::Send must not block (the gRPC adapter
// queues; a writer thread per session writes), and implementations must
// not call back into Fleet from Send or Close.
//
// Lost runs: a RUNNING run whose agent disconnects, falls silent or
// restarts without it is FAILED with the reason and re-queued while its
// attempt is within the sweep's max_retries. A LEASED run (the agent never reported
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
#include "controller/core/fleet_counters.h"
#include "powersweep/v1/agent_gateway.pb.h"
#include "powersweep/v1/control.pb.h"
#include "storage/store.h"

namespace powersweep {

struct FleetOptions {
  // Agents send a heartbeat this often; silent for 3 intervals = gone.
  absl::Duration heartbeat_interval = absl::Seconds(2);
  // An AssignRun the agent has not answered (AssignReply or RunStarted)
  // within this is released: the run goes back to PENDING.
  absl::Duration lease_timeout = absl::Seconds(15);
  // Agents send unacknowledged messages again after this (Registered).
  absl::Duration ack_timeout = absl::Seconds(10);
  // Runs the store holds as leased or running that no session holds (e.g.
  // after a controller restart) are kept this long for their agents to
  // come back and report them.
  absl::Duration reconnect_grace = absl::Seconds(30);
  // A session whose write to the agent waits longer than this (the agent
  // stopped reading its stream) is ended like a silent one.
  absl::Duration write_timeout = absl::Seconds(20);
  // A RUNNING run with no result this long after its RunSpec's timeout_s
  // (and settle wait) is failed by the controller, and the agent told.
  absl::Duration run_deadline_margin = absl::Seconds(120);
  // A device registered without a certificate that never started a run is
  // deleted from the store this long after it disconnected.
  absl::Duration unconfirmed_device_ttl = absl::Minutes(10);
  // Quotas: devices the store may hold (unconfirmed ones apart: at most
  // as many again), sessions at once.
  int max_devices = 10000;
  int max_sessions = 5000;
};

class Fleet {
 public:
  Fleet(Store* store, Clock* clock, FleetOptions options);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // A session's first message. Records the device in the store, sends
  // Registered (with a resume token for the next session), reconciles the
  // runs the store holds as active for this device against what the agent
  // reports (Register.active_run_id and Register.runs: a run it executes
  // or holds the spooled RunFinished of continues; one it lost is failed
  // with the reason naming the agent), cancels a run it executes that the
  // controller no longer holds, then dispatches to it.
  //
  // A device with a live session keeps it unless the new one presents
  // that session's resume token or `identity_verified` (a certificate for
  // the device_id): FailedPrecondition otherwise. InvalidArgument if the
  // identity lacks device_id or device_class; ResourceExhausted beyond
  // max_devices or max_sessions.
  absl::Status Register(const v1::Register& reg,
                        std::shared_ptr<AgentConnection> conn,
                        bool identity_verified = false);

  // Every later message of session `conn` of `device_id`; messages of a
  // session that is no longer the device's are dropped. Batches and
  // RunFinished are committed then acknowledged; when they cannot be
  // stored they are not acknowledged (the agent sends them again after its
  // ack timeout). A RunFinished whose batches are not all stored yet gets
  // a ResendRequest for the missing ones.
  void HandleMessage(const std::string& device_id, const AgentConnection* conn,
                     const v1::AgentMessage& msg);

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
  // cancelled. NotFound for an unknown sweep or a run not in it. A store
  // error on one run does not stop the others (their agents are still
  // told); the first error is returned then.
  absl::StatusOr<int> CancelRuns(int64_t sweep_id, int64_t run_id,
                                 const std::string& reason);

  // Drains, undrains or forgets `device_id` (device_state.cc) and returns
  // what happened in a sentence. Drained: no new runs go to the device; the
  // run it holds finishes normally. Undrained: runs go to it again.
  // Forgotten: ListDevices (and so sweep validation) no longer lists it,
  // its runs and data stay; when its agent registers again it is listed
  // again (logged). Persisted in the store. NotFound naming the id for a
  // device the store does not list; FailedPrecondition for forgetting a
  // connected device that is not drained; InvalidArgument for an empty id
  // or action.
  absl::StatusOr<std::string> SetDeviceState(const std::string& device_id,
                                             v1::DeviceAction action);

  // Re-queues the runs of `sweep_id` that ended FAILED (`failed`) and/or
  // CANCELLED (`cancelled`; neither: both) as a new attempt (attempt + 1;
  // earlier attempts' data stays), then dispatches (rerun.cc). A run an
  // agent still holds (a cancelled run it is stopping) is skipped and
  // named in `skipped`. NotFound for an unknown sweep. A store error on one
  // run does not stop the others: every error is reported at the end, with
  // how many runs were re-queued. `timeout_s` > 0: the re-queued runs get
  // that timeout (RunSpec.timeout_s) instead of their own; InvalidArgument
  // when it is negative or not finite.
  absl::StatusOr<v1::RerunResponse> Rerun(int64_t sweep_id, bool failed,
                                          bool cancelled,
                                          double timeout_s = 0);

  // One log line per sweep that has not finished, with its pending and
  // in-flight runs (after a restart: the in-flight ones' agents have
  // reconnect_grace to come back). Returns the lines (recovery.cc).
  std::vector<std::string> LogUnfinishedSweeps();

  // Assigns pending runs to idle connected agents that can serve them.
  void Dispatch();

  // Decides, never blocks on an agent: closes and disconnects agents
  // silent for 3 heartbeat intervals, releases assignments unanswered for
  // lease_timeout, and releases runs the store holds as active that no
  // session has held for reconnect_grace (left by a previous controller,
  // or a release the store refused).
  //
  // After NoteStall, none of these judgments is made for 3 heartbeat
  // intervals: silence is measured on what the controller received, not
  // on time it was not running.
  void CheckLiveness();
  // The controller itself did not run for `gap` (SIGSTOP, a suspended VM,
  // a starved machine; controller/main.cc notices its liveness loop woke
  // late). Agents' messages of that time are still on their way, so every
  // agent gets 3 heartbeat intervals from now before it is judged silent,
  // and expired assignments and stalled writes wait as long.
  void NoteStall(absl::Duration gap);

  // Every device the store knows but forgotten ones, with connected and
  // current_run_id filled, and the health of a connected device's latest
  // heartbeat.
  absl::StatusOr<std::vector<v1::DeviceStatus>> ListDevices();

  // Identities and capabilities of the connected agents.
  std::vector<v1::DeviceStatus> ConnectedDevices();

  // For the /metrics page: what the session paths counted so far, and the
  // connected agents by state (counted now). Neither touches the store.
  const FleetCounters& counters() const;
  AgentCounts CountAgents() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_FLEET_H_
