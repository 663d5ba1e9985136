// Fleet::Impl: the private state of Fleet, shared by fleet.cc (sessions),
// reconcile.cc (what agents report: register, heartbeat, assign replies),
// dispatch.cc (handing out runs), ingest.cc (run events and batches),
// recovery.cc (lost runs, leases, orphans), cancel.cc, health.cc (agents'
// health checks), device_state.cc (drain, undrain, forget) and rerun.cc.
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

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
  FleetCounters counters;
  absl::Mutex run_mu;

  // Devices the store knows (loaded at the first registration or device
  // state change), for the max_devices quota, and the operators' marks.
  bool devices_loaded ABSL_GUARDED_BY(run_mu) = false;
  std::set<std::string> known_devices ABSL_GUARDED_BY(run_mu);
  std::set<std::string> drained_devices ABSL_GUARDED_BY(run_mu);
  std::set<std::string> forgotten_devices ABSL_GUARDED_BY(run_mu);
  // The store's identity, told to agents in Registered.
  std::string database_id ABSL_GUARDED_BY(run_mu);

  // Runs the store holds as leased or running that no session holds (left
  // by a previous controller, or a release the store refused), with when
  // they were first seen so; released after reconnect_grace. Scanned at
  // most every reconnect_grace / 3.
  std::map<int64_t, absl::Time> unheld_since ABSL_GUARDED_BY(run_mu);
  absl::Time next_unheld_scan ABSL_GUARDED_BY(run_mu) = absl::InfinitePast();
  // Runs failed because their agent sent data that cannot be stored
  // (FailHeldRunLocked for rejected data): never revived by late data.
  std::set<int64_t> refused_runs ABSL_GUARDED_BY(run_mu);
  // Whether data of `run_id` (attempt `attempt`, 0: the current one) that
  // `device_id` sends although it no longer holds the run is stored: the
  // controller failed the run for a lost agent (disconnected, silent,
  // restarted, did not come back), its attempt was not retried and has no
  // result, and its data was never refused. The agent's spooled batches
  // and result then complete it (FAILED -> DONE) instead of being thrown
  // away.
  bool AcceptsLateData(const std::string& device_id, int64_t run_id,
                       int32_t attempt) ABSL_SHARED_LOCKS_REQUIRED(run_mu);

  // Devices that registered without a verified identity (no client
  // certificate) and have not started a run: they do not count against
  // max_devices (at most max_devices of them at once), and once
  // disconnected for unconfirmed_device_ttl they are deleted from the
  // store (if still unused). Value: when the device disconnected
  // (InfiniteFuture while connected). Loaded with the devices: every
  // stored device no run names starts unconfirmed.
  std::map<std::string, absl::Time> unconfirmed ABSL_GUARDED_BY(run_mu);
  // Deletes unconfirmed devices disconnected for unconfirmed_device_ttl
  // (all disconnected ones, oldest first, up to `make_room`, when that is
  // > 0: room for a new registration).
  void ExpireUnconfirmedLocked(absl::Time now, int make_room = 0)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // Devices that let assignments expire unanswered: how many in a row and
  // until when they get no run (lease_timeout x 2^(missed-1), at most 10
  // min). Kept by device id, so a reconnect does not clear it; an answer
  // to an assignment (AssignReply, RunStarted) does.
  struct MissedLeases {
    int missed = 0;
    absl::Time hold_until = absl::InfinitePast();
  };
  std::map<std::string, MissedLeases> missed_leases ABSL_GUARDED_BY(run_mu);
  // Clears `device_id`'s missed leases (it answered an assignment).
  void LeaseAnsweredLocked(const std::string& device_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // Fleet::NoteStall: no session is judged (silent, stalled, lease
  // expired, run overdue) before this time.
  std::atomic<int64_t> judge_after_unix_ns{0};

  // Loads known_devices, the marks and database_id once (fleet.cc).
  absl::Status LoadDevicesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // ---- health.cc
  // Records the health check session `conn` of `device_id` reported (a
  // heartbeat); when it changed, stores it, logs it and, if the device
  // passes again, dispatches to it.
  void OnHealth(const std::string& device_id, const AgentConnection* conn,
                const v1::DeviceHealth& health) ABSL_LOCKS_EXCLUDED(run_mu);
  // Stores `health` and logs it, naming what changed since `before`.
  void SaveHealthLocked(const std::string& device_id,
                        const std::optional<v1::DeviceHealth>& before,
                        const v1::DeviceHealth& health)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // ---- reconcile.cc
  // Decides what happens to the device's active runs (store) given what
  // its agent reports in `reg`; queues a CancelRun for a run it executes
  // that the controller does not hold.
  void ReconcileRegister(const v1::Register& reg,
                         const std::shared_ptr<AgentConnection>& conn,
                         Outbox* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  void OnHeartbeat(const std::string& device_id, const AgentConnection* conn,
                   const v1::Heartbeat& hb) ABSL_LOCKS_EXCLUDED(run_mu);
  void OnAssignReply(const std::string& device_id, const AgentConnection* conn,
                     const v1::AssignReply& reply) ABSL_LOCKS_EXCLUDED(run_mu);
  // Marks `run_id` as executing on the agent without the controller
  // holding it there (no runs are handed to the agent until it reports the
  // run ended), and asks the agent to cancel it.
  void HandleForeignRun(const std::string& device_id,
                        const std::shared_ptr<AgentConnection>& conn,
                        int64_t run_id, const std::string& why, Outbox* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // ---- dispatch.cc
  // Leases pending runs to idle agents (only `device_id`'s session when
  // not empty); the AssignRuns go to `out`.
  void DispatchLocked(Outbox* out, const std::string& device_id = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // Leases `spec` to `agent` and queues its AssignRun; false (logged) when
  // the store refused the lease.
  bool LeaseLocked(const IdleAgent& agent, const v1::RunSpec& spec,
                   absl::Time now, Outbox* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // Sends `out` in order. An AssignRun that cannot be sent puts its run
  // back to PENDING, and dispatch runs again without that session.
  void Flush(Outbox out) ABSL_LOCKS_EXCLUDED(run_mu);

  // ---- ingest.cc
  void OnRunStarted(const std::string& device_id, const AgentConnection* conn,
                    const v1::RunStarted& msg) ABSL_LOCKS_EXCLUDED(run_mu);
  void OnBatch(const std::string& device_id, const AgentConnection* conn,
               const v1::DataBatch& batch) ABSL_LOCKS_EXCLUDED(run_mu);
  void OnRunFinished(const std::string& device_id, const AgentConnection* conn,
                     const v1::RunFinished& msg) ABSL_LOCKS_EXCLUDED(run_mu);
  // Commits the run's end (all its batches are stored), acknowledges it
  // and dispatches to the device.
  void FinishLocked(const std::string& device_id,
                    const std::shared_ptr<AgentConnection>& conn,
                    const v1::RunStatus& run, const v1::RunFinished& msg,
                    Outbox* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // The run session `conn` of `device_id` holds cannot go on: the agent
  // sent data that cannot be stored (agent_data_check.h, two contents
  // under one sequence number, sequence numbers that do not add up), or
  // the run is past the controller's own deadline. The run fails with
  // `reason` (retried if the sweep allows); the agent gets a CancelRun
  // with it and no new run until it reports the run ended. The caller
  // acknowledges what was refused.
  void FailHeldRunLocked(const std::string& device_id,
                           const std::shared_ptr<AgentConnection>& conn,
                           int64_t run_id, const std::string& reason,
                           Outbox* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
  // A RunFinished the agent sends for a run AcceptsLateData: DONE with
  // the result once all its batches are stored (else a ResendRequest).
  void CompleteLateRunLocked(const std::string& device_id,
                             const std::shared_ptr<AgentConnection>& conn,
                             const v1::RunFinished& msg, Outbox* out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);
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
  // Assignments unanswered past their deadline go back to PENDING.
  void ReleaseExpiredLeases(Outbox* out) ABSL_LOCKS_EXCLUDED(run_mu);
  // Runs active in the store that no session has held for
  // reconnect_grace (their agent did not come back after a controller
  // restart, or releasing them failed) are released.
  // It also fails runs held past their deadline (FailIfOverdueLocked).
  void ReleaseOrphans() ABSL_LOCKS_EXCLUDED(run_mu);
  // When the controller gives up on a RUNNING run: its start, plus the
  // RunSpec's timeout_s (the agent's own limit) and settle wait, plus
  // run_deadline_margin. InfiniteFuture for a run not started.
  absl::Time RunDeadline(const v1::RunStatus& run) const;
  // Fails `run` (held by its device's session) if `now` is past its
  // deadline: an agent that heartbeats but never ends a run cannot hold
  // it forever.
  void FailIfOverdueLocked(const v1::RunStatus& run, absl::Time now,
                           Outbox* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(run_mu);

  // Queues an Ack to session `conn`.
  static void QueueAck(const std::string& device_id,
                       std::shared_ptr<AgentConnection> conn, int64_t run_id,
                       int32_t attempt, int64_t seq, Outbox* out);
  // Queues a CancelRun to session `conn`.
  static void QueueCancel(const std::string& device_id,
                          std::shared_ptr<AgentConnection> conn,
                          int64_t run_id, const std::string& reason,
                          Outbox* out);
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_FLEET_IMPL_H_
