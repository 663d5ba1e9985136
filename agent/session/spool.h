// Spool: the agent's unacknowledged messages (DataBatch and RunFinished), in
// the order they were added, keyed by (run_id, seq) with seq 0 for a
// RunFinished. Ack removes a message; Pending() lists the rest in order for
// replay after a reconnect. Adding a key already present replaces the
// message in place. In memory only: messages do not survive an agent
// restart.
//
// Thread safety: all methods are thread-safe.
#ifndef POWERSWEEP_AGENT_SESSION_SPOOL_H_
#define POWERSWEEP_AGENT_SESSION_SPOOL_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "powersweep/v1/powersweep.pb.h"

namespace powersweep {

namespace v1 = ::powersweep::v1;

class Spool {
 public:
  using Key = std::pair<int64_t, int64_t>;  // (run_id, seq)

  // InvalidArgument unless `msg` holds a batch or a run_finished.
  absl::Status Add(const v1::AgentMessage& msg);
  // True when the key was spooled (and is now removed).
  bool Ack(int64_t run_id, int64_t seq);
  std::vector<v1::AgentMessage> Pending() const;
  size_t size() const;

  // The key a spooled message is stored under.
  static absl::StatusOr<Key> KeyOf(const v1::AgentMessage& msg);

 private:
  mutable absl::Mutex mu_;
  std::list<std::pair<Key, v1::AgentMessage>> order_ ABSL_GUARDED_BY(mu_);
  std::map<Key, std::list<std::pair<Key, v1::AgentMessage>>::iterator> index_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_SESSION_SPOOL_H_
