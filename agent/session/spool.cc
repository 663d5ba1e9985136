#include "agent/session/spool.h"

#include <algorithm>
#include <climits>
#include <set>
#include <utility>

#include "common/log.h"
#include "common/status_macros.h"

namespace powersweep {
namespace {

// Rewrite the file when it holds this much more than what is pending.
constexpr int64_t kCompactBytes = 64 << 20;

}  // namespace

absl::StatusOr<Spool::Key> Spool::KeyOf(const v1::AgentMessage& msg) {
  if (msg.has_batch()) {
    return Key{msg.batch().run_id(), msg.batch().attempt(), msg.batch().seq()};
  }
  if (msg.has_run_finished()) {
    return Key{msg.run_finished().result().run_id(),
               msg.run_finished().attempt(), 0};
  }
  return absl::InvalidArgumentError(
      "spool: only batch and run_finished messages are spooled");
}

absl::StatusOr<std::unique_ptr<Spool>> Spool::Open(const std::string& path) {
  std::vector<SpoolRecord> records;
  PS_ASSIGN_OR_RETURN(std::unique_ptr<SpoolLog> log,
                      SpoolLog::Open(path, &records));
  auto spool = std::make_unique<Spool>();
  absl::MutexLock lock(&spool->mu_);
  for (const SpoolRecord& rec : records) {
    if (rec.is_database) {
      spool->database_id_ = rec.database_id;
      continue;
    }
    if (rec.is_ack) {
      auto it = spool->index_.find(rec.key);
      if (it == spool->index_.end()) continue;
      spool->order_.erase(it->second);
      spool->index_.erase(it);
      continue;
    }
    absl::StatusOr<Key> key = KeyOf(rec.message);
    if (key.ok()) spool->Insert(*key, rec.message, 0);
  }
  spool->log_ = std::move(log);
  if (!spool->order_.empty()) {
    PS_LOG(INFO) << "spool " << path << ": " << spool->order_.size()
                 << " unacknowledged messages from before the restart";
  }
  spool->Compact();
  return spool;
}

void Spool::Insert(const Key& key, const v1::AgentMessage& msg,
                   int64_t now_ns) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    it->second->msg = msg;
    it->second->sent_ns = now_ns;
    return;
  }
  order_.push_back(Entry{key, msg, now_ns});
  index_[key] = std::prev(order_.end());
}

void Spool::Compact() {
  if (log_ == nullptr) return;
  absl::Status st;
  if (order_.empty()) {
    if (log_->size_bytes() > 0) st = log_->Clear();
    if (st.ok() && !database_id_.empty()) st = log_->AppendDatabase(database_id_);
  } else {
    std::vector<v1::AgentMessage> pending;
    int64_t bytes = 0;
    for (const Entry& e : order_) {
      pending.push_back(e.msg);
      bytes += static_cast<int64_t>(e.msg.ByteSizeLong()) + 9;
    }
    if (log_->size_bytes() > bytes + kCompactBytes || log_->size_bytes() == 0 ||
        bytes < log_->size_bytes() / 2) {
      st = log_->Rewrite(database_id_, pending);
    }
  }
  if (!st.ok()) PS_LOG(WARNING) << st.message();
}

absl::Status Spool::Add(const v1::AgentMessage& msg, int64_t now_ns) {
  PS_ASSIGN_OR_RETURN(Key key, KeyOf(msg));
  absl::MutexLock lock(&mu_);
  // Kept in memory even when the file cannot take it (a full disk): it is
  // still sent and resent until acknowledged, only not across a restart.
  Insert(key, msg, now_ns);
  if (log_ != nullptr) return log_->AppendAdd(msg);
  return absl::OkStatus();
}

bool Spool::Ack(int64_t run_id, int32_t attempt, int64_t seq) {
  absl::MutexLock lock(&mu_);
  auto it = index_.end();
  if (attempt != 0) {
    it = index_.find(Key{run_id, attempt, seq});
  } else {
    for (auto i = index_.lower_bound(Key{run_id, INT32_MIN, 0});
         i != index_.end() && i->first.run_id == run_id; ++i) {
      if (i->first.seq == seq) {
        it = i;
        break;
      }
    }
  }
  if (it == index_.end()) return false;
  const Key key = it->first;
  order_.erase(it->second);
  index_.erase(it);
  if (log_ != nullptr) {
    if (order_.empty()) {
      Compact();
    } else {
      absl::Status st = log_->AppendAck(key);
      if (!st.ok()) PS_LOG(WARNING) << st.message();
      if (log_->size_bytes() > kCompactBytes) Compact();
    }
  }
  return true;
}

size_t Spool::BindDatabase(const std::string& database_id) {
  absl::MutexLock lock(&mu_);
  if (database_id.empty() || database_id == database_id_) return 0;
  size_t dropped = 0;
  if (!database_id_.empty()) {
    dropped = order_.size();
    order_.clear();
    index_.clear();
  }
  database_id_ = database_id;
  if (log_ != nullptr) {
    absl::Status st = dropped > 0 || order_.empty()
                          ? log_->Clear()
                          : absl::OkStatus();
    if (st.ok() && order_.empty()) {
      st = log_->AppendDatabase(database_id_);
    } else if (st.ok()) {
      // Messages from before the id was known: they belong to this one.
      std::vector<v1::AgentMessage> pending;
      for (const Entry& e : order_) pending.push_back(e.msg);
      st = log_->Rewrite(database_id_, pending);
    }
    if (!st.ok()) PS_LOG(WARNING) << st.message();
  }
  return dropped;
}

std::vector<v1::AgentMessage> Spool::Pending() const {
  absl::MutexLock lock(&mu_);
  std::vector<v1::AgentMessage> out;
  out.reserve(order_.size());
  for (const Entry& e : order_) out.push_back(e.msg);
  return out;
}

std::vector<v1::AgentMessage> Spool::TakeDue(int64_t now_ns,
                                             int64_t timeout_ns) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::AgentMessage> out;
  for (Entry& e : order_) {
    if (e.sent_ns <= now_ns - timeout_ns) {
      out.push_back(e.msg);
      e.sent_ns = now_ns;
    }
  }
  return out;
}

void Spool::MarkAllSent(int64_t now_ns) {
  absl::MutexLock lock(&mu_);
  for (Entry& e : order_) e.sent_ns = now_ns;
}

std::vector<v1::AgentMessage> Spool::Select(
    int64_t run_id, int32_t attempt, const std::vector<int64_t>& seqs) const {
  const std::set<int64_t> wanted(seqs.begin(), seqs.end());
  absl::MutexLock lock(&mu_);
  std::vector<v1::AgentMessage> out;
  for (const Entry& e : order_) {
    if (e.key.run_id == run_id && e.key.attempt == attempt &&
        wanted.count(e.key.seq) > 0) {
      out.push_back(e.msg);
    }
  }
  return out;
}

std::vector<v1::RunProgress> Spool::Progress() const {
  absl::MutexLock lock(&mu_);
  std::map<std::pair<int64_t, int32_t>, v1::RunProgress> runs;
  for (const auto& [key, it] : index_) {
    v1::RunProgress& p = runs[{key.run_id, key.attempt}];
    p.set_run_id(key.run_id);
    p.set_attempt(key.attempt);
    if (key.seq == 0) {
      p.set_finished(true);
      p.set_last_seq(std::max(p.last_seq(), it->msg.run_finished().batches()));
    } else {
      p.set_last_seq(std::max(p.last_seq(), key.seq));
    }
  }
  std::vector<v1::RunProgress> out;
  for (auto& [k, p] : runs) out.push_back(std::move(p));
  return out;
}

size_t Spool::size() const {
  absl::MutexLock lock(&mu_);
  return order_.size();
}

}  // namespace powersweep
