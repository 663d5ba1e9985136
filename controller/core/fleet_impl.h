// Fleet::Impl: the private state of Fleet, shared by fleet.cc (sessions),
// dispatch.cc (handing out runs) and ingest.cc (run events and batches).
//
// Locking: `registry` has its own mutex and is never locked across a call
// out. `run_mu` serializes every decision about a run's state (register
// reconciliation, dispatch, RunStarted, RunFinished, disconnect) so that a
// run is leased to at most one agent and an agent holds at most one run;
// Store calls happen under it, AgentConnection::Close never does, and
// AgentConnection::Send only for `Registered` (the first message of a new
// session). Other messages are queued in an Outbox and sent after run_mu
// is released. Data batches are ingested under a shared (reader) hold of
// run_mu: in parallel with each other, never while a run is released.
#ifndef POWERSWEEP_CONTROLLER_CORE_FLEET_IMPL_H_
#define POWERSWEEP_CONTROLLER_CORE_FLEET_IMPL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "controller/core/fleet.h"
#include "controller/core/registry.h"
#include "storage/store.h"

namespace powersweep {

// A message to send once run_mu is released.
struct Outgoing {
  std::string device_id;
  std::shared_ptr<AgentConnection> conn;
  v1::ControllerMessage msg;
};
using Outbox = std::vector<Outgoing>;

struct Fleet::Impl {
  Impl(Store* s, Clock* c, FleetOptions o) : store(s), clock(c), options(o) {}

  Store* const store;
  Clock* const clock;
  const FleetOptions options;
  AgentRegistry registry;
  absl::Mutex run_mu;

  // ---- dispatch.cc
  // Leases pending runs to idle agents; the AssignRuns go to `out`.
  void DispatchLocked(Outbox* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // Sends `out` in order. An AssignRun that cannot be sent puts its run
  // back to PENDING, and dispatch runs again without that session.
  void Flush(Outbox out) ABSL_LOCKS_EXCLUDED(run_mu);

  // ---- ingest.cc
  void OnRunStarted(const std::string& device_id, const v1::RunStarted& msg)
      ABSL_LOCKS_EXCLUDED(run_mu);
  void OnBatch(const std::string& device_id, const v1::DataBatch& batch)
      ABSL_LOCKS_EXCLUDED(run_mu);
  void OnRunFinished(const std::string& device_id, const v1::RunFinished& msg)
      ABSL_LOCKS_EXCLUDED(run_mu);
  v1::RunResult WithBaseload(const v1::RunStatus& run,
                             const v1::RunResult& result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // ---- recovery.cc
  // Session `conn` of `device_id` ended (`cause`, e.g. "agent X
  // disconnected"); no-op if a newer session replaced it. Releases its run
  // and dispatches to the remaining agents.
  void EndSession(const std::string& device_id, const AgentConnection* conn,
                  const std::string& cause) ABSL_LOCKS_EXCLUDED(run_mu);
  // A run that `device_id` held is lost (`cause`, e.g. "agent X
  // disconnected"). RUNNING: FAILED with "<cause> during the run" (or
  // `running_reason` if not empty), then re-queued if the sweep allows.
  // LEASED (never started): straight back to PENDING, no attempt used.
  void ReleaseLostRun(const v1::RunStatus& run, const std::string& device_id,
                      const std::string& cause,
                      const std::string& running_reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // Re-queues the FAILED run (FAILED -> PENDING, attempt + 1) if its
  // attempt is within the sweep's max_retries.
  void RetryIfAllowed(const v1::RunSpec& spec, const std::string& reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // Queues an Ack to the device's current session.
  void QueueAck(const std::string& device_id, int64_t run_id, int64_t seq,
                Outbox* out);
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_FLEET_IMPL_H_
