#include "controller/core/registry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/kernel_names.h"

namespace powersweep {

std::shared_ptr<AgentConnection> AgentRegistry::Put(AgentEntry entry) {
  entry.profile = MakeDispatchProfile(entry.identity, entry.capabilities);
  absl::MutexLock lock(&mu_);
  const std::string id = entry.identity.device_id();
  std::shared_ptr<AgentConnection> old;
  auto it = agents_.find(id);
  if (it != agents_.end()) old = std::move(it->second.conn);
  agents_[id] = std::move(entry);
  return old;
}

std::optional<AgentEntry> AgentRegistry::Remove(const std::string& device_id,
                                                const AgentConnection* conn) {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end() || it->second.conn.get() != conn) {
    return std::nullopt;
  }
  AgentEntry entry = std::move(it->second);
  agents_.erase(it);
  return entry;
}

bool AgentRegistry::Touch(const std::string& device_id,
                          const AgentConnection* conn, absl::Time now,
                          int handling) {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end() || it->second.conn.get() != conn) return false;
  if (now > it->second.last_message) it->second.last_message = now;
  it->second.handling += handling;
  return true;
}

std::optional<AgentEntry> AgentRegistry::Get(
    const std::string& device_id) const {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end()) return std::nullopt;
  return it->second;
}

AgentEntry* AgentRegistry::Find(const std::string& device_id,
                                const AgentConnection* conn) {
  auto it = agents_.find(device_id);
  if (it == agents_.end() || it->second.conn.get() != conn) return nullptr;
  return &it->second;
}

std::optional<SessionView> AgentRegistry::View(
    const std::string& device_id, const AgentConnection* conn) const {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end() || it->second.conn.get() != conn) {
    return std::nullopt;
  }
  const AgentEntry& e = it->second;
  return SessionView{e.conn, e.current_run_id, e.current_attempt,
                     e.foreign_run_id, e.health};
}

bool AgentRegistry::SetCurrentRun(const std::string& device_id,
                                  const AgentConnection* conn, int64_t run_id,
                                  int32_t attempt) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry == nullptr) return false;
  entry->current_run_id = run_id;
  entry->current_attempt = run_id != 0 ? attempt : 0;
  entry->lease_deadline = absl::InfiniteFuture();
  return true;
}

void AgentRegistry::SetLeaseDeadline(const std::string& device_id,
                                     const AgentConnection* conn,
                                     absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry != nullptr) entry->lease_deadline = deadline;
}

void AgentRegistry::ClearLeaseDeadline(const std::string& device_id,
                                       const AgentConnection* conn,
                                       int64_t run_id) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry != nullptr && entry->current_run_id == run_id) {
    entry->lease_deadline = absl::InfiniteFuture();
  }
}

void AgentRegistry::SetForeignRun(const std::string& device_id,
                                  const AgentConnection* conn,
                                  int64_t run_id) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry != nullptr) entry->foreign_run_id = run_id;
}

std::optional<int64_t> AgentRegistry::CurrentRun(
    const std::string& device_id) const {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end()) return std::nullopt;
  return it->second.current_run_id;
}

std::vector<AgentEntry> AgentRegistry::ExpiredLeases(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  std::vector<AgentEntry> out;
  for (const auto& [id, entry] : agents_) {
    if (entry.lease_deadline < now) out.push_back(entry);
  }
  return out;
}

size_t AgentRegistry::size() const {
  absl::MutexLock lock(&mu_);
  return agents_.size();
}

AgentCounts AgentRegistry::Counts() const {
  absl::MutexLock lock(&mu_);
  AgentCounts counts;
  for (const auto& [id, e] : agents_) {
    ++counts.connected;
    counts.healthy += Passes(e.health) ? 1 : 0;
    counts.drained += e.drained ? 1 : 0;
    counts.busy += e.current_run_id != 0 ? 1 : 0;
  }
  return counts;
}

bool AgentRegistry::SetDrained(const std::string& device_id, bool drained) {
  absl::MutexLock lock(&mu_);
  auto it = agents_.find(device_id);
  if (it == agents_.end()) return false;
  it->second.drained = drained;
  return true;
}

void AgentRegistry::SetHealth(const std::string& device_id,
                              const AgentConnection* conn,
                              const v1::DeviceHealth& health) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry != nullptr) entry->health = health;
}

void AgentRegistry::SetLatestSample(const std::string& device_id,
                                    const AgentConnection* conn,
                                    const v1::TelemetrySample& sample,
                                    absl::Time now) {
  auto copy = std::make_shared<const v1::TelemetrySample>(sample);
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry == nullptr) return;
  entry->latest = std::move(copy);
  entry->latest_at = now;
}

void AgentRegistry::MarkUnassignable(const std::string& device_id,
                                     const AgentConnection* conn) {
  absl::MutexLock lock(&mu_);
  AgentEntry* entry = Find(device_id, conn);
  if (entry != nullptr) entry->assignable = false;
}

std::vector<AgentEntry> AgentRegistry::Snapshot() const {
  absl::MutexLock lock(&mu_);
  std::vector<AgentEntry> out;
  out.reserve(agents_.size());
  for (const auto& [id, entry] : agents_) out.push_back(entry);
  return out;
}

std::shared_ptr<const DispatchProfile> MakeDispatchProfile(
    const v1::DeviceIdentity& identity, const v1::DeviceCapabilities& caps) {
  auto p = std::make_shared<DispatchProfile>();
  PendingFilter& f = p->filter;
  f.device_class = identity.device_class();
  for (int r : caps.runtimes()) f.runtimes.push_back(static_cast<v1::Runtime>(r));
  f.models.assign(caps.models().begin(), caps.models().end());
  f.datasets.assign(caps.datasets().begin(), caps.datasets().end());
  for (const std::string& m : caps.models()) {
    if (IsKernelName(m)) f.kernels.push_back(m);
  }
  f.max_cpu_cores = caps.cpu_cores();
  p->key = absl::StrCat(f.device_class, "|", f.max_cpu_cores, "|");
  for (v1::Runtime r : f.runtimes) absl::StrAppend(&p->key, r, ",");
  absl::StrAppend(&p->key, "|", absl::StrJoin(f.models, ","), "|",
                  absl::StrJoin(f.datasets, ","));
  return p;
}

std::vector<IdleAgent> AgentRegistry::IdleAgents(
    const std::string& device_id) const {
  absl::MutexLock lock(&mu_);
  std::vector<IdleAgent> out;
  auto add = [&out](const AgentEntry& e) {
    if (e.assignable && e.current_run_id == 0 && e.foreign_run_id == 0 &&
        !e.drained && Passes(e.health)) {
      out.push_back(IdleAgent{e.identity.device_id(), e.conn, e.profile});
    }
  };
  if (!device_id.empty()) {
    auto it = agents_.find(device_id);
    if (it != agents_.end()) add(it->second);
    return out;
  }
  for (const auto& [id, entry] : agents_) add(entry);
  return out;
}

std::vector<AgentEntry> AgentRegistry::SilentSince(absl::Time cutoff) const {
  absl::MutexLock lock(&mu_);
  std::vector<AgentEntry> out;
  for (const auto& [id, entry] : agents_) {
    if (entry.last_message < cutoff && entry.handling <= 0) {
      out.push_back(entry);
    }
  }
  return out;
}

std::vector<AgentEntry> AgentRegistry::StalledWriters(
    absl::Duration limit) const {
  absl::MutexLock lock(&mu_);
  std::vector<AgentEntry> out;
  for (const auto& [id, entry] : agents_) {
    if (entry.conn != nullptr && entry.conn->WriteWaiting() > limit) {
      out.push_back(entry);
    }
  }
  return out;
}

}  // namespace powersweep
