#include "agent/session/spool.h"

namespace powersweep {

absl::StatusOr<Spool::Key> Spool::KeyOf(const v1::AgentMessage& msg) {
  if (msg.has_batch()) return Key(msg.batch().run_id(), msg.batch().seq());
  if (msg.has_run_finished()) {
    return Key(msg.run_finished().result().run_id(), 0);
  }
  return absl::InvalidArgumentError(
      "spool: only batch and run_finished messages are spooled");
}

absl::Status Spool::Add(const v1::AgentMessage& msg) {
  absl::StatusOr<Key> key = KeyOf(msg);
  if (!key.ok()) return key.status();
  absl::MutexLock lock(&mu_);
  auto it = index_.find(*key);
  if (it != index_.end()) {
    it->second->second = msg;
    return absl::OkStatus();
  }
  order_.emplace_back(*key, msg);
  index_[*key] = std::prev(order_.end());
  return absl::OkStatus();
}

bool Spool::Ack(int64_t run_id, int64_t seq) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(Key(run_id, seq));
  if (it == index_.end()) return false;
  order_.erase(it->second);
  index_.erase(it);
  return true;
}

std::vector<v1::AgentMessage> Spool::Pending() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::AgentMessage> out;
  out.reserve(order_.size());
  for (const auto& [key, msg] : order_) out.push_back(msg);
  return out;
}

size_t Spool::size() const {
  absl::MutexLock lock(&mu_);
  return order_.size();
}

}  // namespace powersweep
