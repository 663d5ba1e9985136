// Spool: the agent's unacknowledged messages (DataBatch and RunFinished), in
// the order they were added, keyed by (run_id, attempt, seq) with seq 0 for
// a RunFinished. Ack removes a message; Pending() lists the rest in order
// for replay after a reconnect; TakeDue() the ones whose acknowledgement is
// overdue, to send again without waiting for a reconnect. Adding a key
// already present replaces the message in place.
//
// With a file (Open(path)), every Add is durable before it returns (see
// spool_log.h) and the spool is read back at the next start, so data a run
// produced survives an agent crash; without one (the default constructor)
// it lives in memory only.
//
// Thread safety: all methods are thread-safe.
#ifndef POWERSWEEP_AGENT_SESSION_SPOOL_H_
#define POWERSWEEP_AGENT_SESSION_SPOOL_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "agent/session/spool_log.h"
#include "powersweep/v1/agent_gateway.pb.h"

namespace powersweep {

class Spool {
 public:
  using Key = SpoolKey;

  Spool() = default;  // in memory only
  // A spool backed by the file `path`, with what the file already holds.
  static absl::StatusOr<std::unique_ptr<Spool>> Open(const std::string& path);

  // InvalidArgument unless `msg` holds a batch or a run_finished (nothing
  // is added). The file's error when it cannot be made durable; the
  // message is still kept in memory then.
  // `now_ns` (monotonic) is when the message is first sent.
  absl::Status Add(const v1::AgentMessage& msg, int64_t now_ns = 0);
  // Removes (run_id, attempt, seq); attempt 0 matches any attempt of the
  // run. True when something was removed.
  bool Ack(int64_t run_id, int32_t attempt, int64_t seq);
  // Every message, in the order added.
  std::vector<v1::AgentMessage> Pending() const;
  // Messages last sent at or before `now_ns - timeout_ns`, in order; marks
  // them sent at `now_ns`.
  std::vector<v1::AgentMessage> TakeDue(int64_t now_ns, int64_t timeout_ns);
  // Marks every message sent at `now_ns` (after a replay).
  void MarkAllSent(int64_t now_ns);
  // The messages of (run_id, attempt) with one of `seqs`, in order.
  std::vector<v1::AgentMessage> Select(int64_t run_id, int32_t attempt,
                                       const std::vector<int64_t>& seqs) const;
  // Ties the spool to the controller database `database_id` (from
  // Registered). Messages written for another database are dropped (their
  // run ids name other runs there); returns how many. An empty id (an old
  // controller) changes nothing.
  size_t BindDatabase(const std::string& database_id);
  // One entry per (run, attempt) spooled: finished, last_seq.
  std::vector<v1::RunProgress> Progress() const;
  size_t size() const;

  // The key a spooled message is stored under.
  static absl::StatusOr<Key> KeyOf(const v1::AgentMessage& msg);

 private:
  struct Entry {
    Key key;
    v1::AgentMessage msg;
    int64_t sent_ns = 0;
  };
  using List = std::list<Entry>;

  void Insert(const Key& key, const v1::AgentMessage& msg, int64_t now_ns)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Compact() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  List order_ ABSL_GUARDED_BY(mu_);
  std::map<Key, List::iterator> index_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SpoolLog> log_ ABSL_GUARDED_BY(mu_);
  std::string database_id_ ABSL_GUARDED_BY(mu_);  // empty: not known yet
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_SESSION_SPOOL_H_
