// AgentRegistry: the connected agents, keyed by device_id. Each entry holds
// the agent's identity and capabilities, its session (AgentConnection), the
// run it currently holds (0 when idle) and when its last message arrived.
//
// At most one entry per device_id: Put replaces an older session. Every
// method that changes a session's state takes the connection it expects and
// does nothing if the device has been replaced by a newer session since.
//
// Thread-safe: one internal mutex; never held while calling out (no store
// or connection calls happen here). Readers get copies.
#ifndef POWERSWEEP_CONTROLLER_CORE_REGISTRY_H_
#define POWERSWEEP_CONTROLLER_CORE_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "controller/core/agent_connection.h"
#include "controller/core/fleet_counters.h"
#include "powersweep/v1/device.pb.h"
#include "powersweep/v1/telemetry.pb.h"
#include "storage/store.h"

namespace powersweep {

// What a device can serve, worked out once at registration: the store
// query's filter and a key that is equal for devices that serve the same.
struct DispatchProfile {
  PendingFilter filter;
  std::string key;
};

// The profile of a device with `identity` and `caps`.
std::shared_ptr<const DispatchProfile> MakeDispatchProfile(
    const ::powersweep::v1::DeviceIdentity& identity,
    const ::powersweep::v1::DeviceCapabilities& caps);

struct AgentEntry {
  ::powersweep::v1::DeviceIdentity identity;
  ::powersweep::v1::DeviceCapabilities capabilities;
  // Derived from identity and capabilities by Put.
  std::shared_ptr<const DispatchProfile> profile;
  std::shared_ptr<AgentConnection> conn;
  int64_t current_run_id = 0;  // 0 when idle
  int32_t current_attempt = 0;
  // An assignment not yet answered (AssignReply) must be by this time, or
  // the run is released. InfiniteFuture when nothing is waiting.
  absl::Time lease_deadline = absl::InfiniteFuture();
  // A run the agent says it executes that the controller does not hold on
  // it (it rejected an assignment as busy, or its heartbeat named it): no
  // run is handed to the agent until it reports it finished or idle.
  int64_t foreign_run_id = 0;
  absl::Time last_message;
  // Messages of this session the controller is handling now (Touch with
  // `handling`): while one is, the agent is not silent, whatever the time
  // since last_message (the controller, not the agent, is slow: e.g. a
  // batch waiting for a locked database holds up the stream).
  int handling = 0;
  // Given to the agent in Registered; a reconnecting agent that presents
  // it may replace this session while it still looks live.
  std::string resume_token;
  // False once a Send to this session failed: the session is going away,
  // so no more runs are handed to it until it is replaced.
  bool assignable = true;
  // Drained by an operator: no new runs (the current one finishes).
  bool drained = false;
  // The agent's latest health check; none reported counts as passing.
  std::optional<::powersweep::v1::DeviceHealth> health;
  // The newest telemetry sample of its heartbeats (live views) and when it
  // came; shared so that copies of the entry stay cheap.
  std::shared_ptr<const ::powersweep::v1::TelemetrySample> latest;
  absl::Time latest_at;
};

// Whether `health` lets runs go to the device (none reported: yes).
inline bool Passes(const std::optional<::powersweep::v1::DeviceHealth>& health) {
  return !health.has_value() || health->healthy();
}

// An idle session and what it can serve (no capabilities copied).
struct IdleAgent {
  std::string device_id;
  std::shared_ptr<AgentConnection> conn;
  std::shared_ptr<const DispatchProfile> profile;
};

// What message handling needs of a session, without copying capabilities.
struct SessionView {
  std::shared_ptr<AgentConnection> conn;
  int64_t current_run_id = 0;
  int32_t current_attempt = 0;
  int64_t foreign_run_id = 0;
  std::optional<::powersweep::v1::DeviceHealth> health;
};

class AgentRegistry {
 public:
  // Adds `entry` under entry.identity.device_id (with its dispatch profile
  // worked out), replacing any older session. Returns the replaced session's connection (nullptr if none).
  std::shared_ptr<AgentConnection> Put(AgentEntry entry);

  // Removes `device_id` if `conn` is its current session; returns the
  // removed entry, or nullopt if the device is unknown or `conn` is stale.
  std::optional<AgentEntry> Remove(const std::string& device_id,
                                   const AgentConnection* conn);

  // Records a message of `conn`'s session of `device_id` at `now`, and
  // adds `handling` to AgentEntry::handling (+1 when the controller starts
  // handling the message, -1 when it is done). False (nothing changed) if
  // `conn` is not the device's current session.
  bool Touch(const std::string& device_id, const AgentConnection* conn,
             absl::Time now, int handling = 0);

  // The run the device's session holds (0: none), or nullopt if it is
  // not connected. Copies nothing else.
  std::optional<int64_t> CurrentRun(const std::string& device_id) const;

  // A copy of the device's entry, or nullopt if it is not connected.
  std::optional<AgentEntry> Get(const std::string& device_id) const;

  // The session of `device_id` if `conn` is it (nullopt otherwise).
  std::optional<SessionView> View(const std::string& device_id,
                                  const AgentConnection* conn) const;

  // Sets the run held by session `conn` of `device_id` (0 = idle) and its
  // attempt, and clears any lease deadline. False if `conn` is no longer
  // the device's session.
  bool SetCurrentRun(const std::string& device_id, const AgentConnection* conn,
                     int64_t run_id, int32_t attempt = 0);
  // Sets the deadline by which the current assignment must be answered.
  void SetLeaseDeadline(const std::string& device_id,
                        const AgentConnection* conn, absl::Time deadline);
  // Clears the lease deadline if `run_id` is the session's current run.
  void ClearLeaseDeadline(const std::string& device_id,
                          const AgentConnection* conn, int64_t run_id);
  // Sets (0: clears) the run the agent executes without holding it here.
  void SetForeignRun(const std::string& device_id, const AgentConnection* conn,
                     int64_t run_id);
  // Entries whose lease deadline is before `now`.
  std::vector<AgentEntry> ExpiredLeases(absl::Time now) const;
  // Number of connected sessions.
  size_t size() const;
  // The connected sessions by state (fleet_counters.h); copies nothing.
  AgentCounts Counts() const;

  // Marks the connected device drained or not; false if not connected.
  bool SetDrained(const std::string& device_id, bool drained);
  // Records the health check session `conn` of `device_id` reported.
  void SetHealth(const std::string& device_id, const AgentConnection* conn,
                 const ::powersweep::v1::DeviceHealth& health);
  // Records the newest telemetry sample session `conn` of `device_id`
  // reported, received at `now`.
  void SetLatestSample(const std::string& device_id,
                       const AgentConnection* conn,
                       const ::powersweep::v1::TelemetrySample& sample,
                       absl::Time now);

  // Stops handing runs to session `conn` of `device_id`.
  void MarkUnassignable(const std::string& device_id,
                        const AgentConnection* conn);

  // Every entry, in device_id order.
  std::vector<AgentEntry> Snapshot() const;

  // Assignable sessions holding no run and executing no foreign run, not
  // drained and passing their health check, in device_id order (only
  // `device_id`'s when not empty).
  std::vector<IdleAgent> IdleAgents(const std::string& device_id = "") const;

  // Entries whose last message is older than `cutoff` and that have no
  // message in handling.
  std::vector<AgentEntry> SilentSince(absl::Time cutoff) const;
  // Entries whose connection has had a write waiting longer than `limit`.
  std::vector<AgentEntry> StalledWriters(absl::Duration limit) const;

 private:
  AgentEntry* Find(const std::string& device_id, const AgentConnection* conn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, AgentEntry> agents_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_REGISTRY_H_
