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
#include "powersweep/v1/powersweep.pb.h"

namespace powersweep {

struct AgentEntry {
  ::powersweep::v1::DeviceIdentity identity;
  ::powersweep::v1::DeviceCapabilities capabilities;
  std::shared_ptr<AgentConnection> conn;
  int64_t current_run_id = 0;  // 0 when idle
  absl::Time last_message;
  // False once a Send to this session failed: the session is going away,
  // so no more runs are handed to it until it is replaced.
  bool assignable = true;
};

class AgentRegistry {
 public:
  // Adds `entry` under entry.identity.device_id, replacing any older
  // session. Returns the replaced session's connection (nullptr if none).
  std::shared_ptr<AgentConnection> Put(AgentEntry entry);

  // Removes `device_id` if `conn` is its current session; returns the
  // removed entry, or nullopt if the device is unknown or `conn` is stale.
  std::optional<AgentEntry> Remove(const std::string& device_id,
                                   const AgentConnection* conn);

  // Records a message from `device_id` at `now`. False if unknown.
  bool Touch(const std::string& device_id, absl::Time now);

  // A copy of the device's entry, or nullopt if it is not connected.
  std::optional<AgentEntry> Get(const std::string& device_id) const;

  // Sets the run held by session `conn` of `device_id` (0 = idle). False if
  // `conn` is no longer the device's session.
  bool SetCurrentRun(const std::string& device_id, const AgentConnection* conn,
                     int64_t run_id);

  // Stops handing runs to session `conn` of `device_id`.
  void MarkUnassignable(const std::string& device_id,
                        const AgentConnection* conn);

  // Every entry, in device_id order.
  std::vector<AgentEntry> Snapshot() const;

  // Assignable entries holding no run, in device_id order.
  std::vector<AgentEntry> Idle() const;

  // Entries whose last message is older than `cutoff`.
  std::vector<AgentEntry> SilentSince(absl::Time cutoff) const;

 private:
  AgentEntry* Find(const std::string& device_id, const AgentConnection* conn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, AgentEntry> agents_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_REGISTRY_H_
