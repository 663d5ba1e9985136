// MemoryStore: the state of devices that operators and agents set:
// drained, forgotten, the latest health check.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "storage/memory_store.h"

namespace powersweep {

absl::StatusOr<MemoryStore::Device*> MemoryStore::FindDevice(
    const std::string& device_id) {
  auto it = devices_.find(device_id);
  if (it == devices_.end()) {
    return absl::NotFoundError(
        absl::StrCat("unknown device '", device_id, "'"));
  }
  return &it->second;
}

absl::Status MemoryStore::SetDeviceDrained(const std::string& device_id,
                                           bool drained) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Device * d, FindDevice(device_id));
  d->drained = drained;
  return absl::OkStatus();
}

absl::Status MemoryStore::SetDeviceForgotten(const std::string& device_id,
                                             bool forgotten) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Device * d, FindDevice(device_id));
  d->forgotten = forgotten;
  return absl::OkStatus();
}

namespace {

template <typename Runs, typename Offsets>
bool Used(const std::string& device_id, const Runs& runs,
          const Offsets& offsets) {
  for (const auto& [id, run] : runs) {
    if (run.device_id == device_id) return true;
    for (const RunStateChange& h : run.history) {
      if (h.device_id == device_id) return true;
    }
    for (const std::string& d : run.spec.devices()) {
      if (d == device_id) return true;
    }
  }
  for (const auto& [key, offset] : offsets) {
    if (key.first == device_id) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> MemoryStore::ListUnusedDevices() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [id, device] : devices_) {
    if (!Used(id, runs_, offsets_)) out.push_back(id);
  }
  return out;
}

absl::StatusOr<bool> MemoryStore::DeleteUnusedDevice(
    const std::string& device_id) {
  absl::MutexLock lock(&mu_);
  if (devices_.count(device_id) == 0 || Used(device_id, runs_, offsets_)) {
    return false;
  }
  devices_.erase(device_id);
  return true;
}

absl::Status MemoryStore::SaveDeviceDisconnected(const std::string& device_id,
                                                 absl::Time last_seen,
                                                 absl::Time at) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Device * d, FindDevice(device_id));
  d->last_seen_ms = std::max(d->last_seen_ms, absl::ToUnixMillis(last_seen));
  d->disconnected_ms = absl::ToUnixMillis(at);
  return absl::OkStatus();
}

absl::Status MemoryStore::SaveDeviceHealth(const std::string& device_id,
                                           const v1::DeviceHealth& health) {
  absl::MutexLock lock(&mu_);
  PS_ASSIGN_OR_RETURN(Device * d, FindDevice(device_id));
  d->health = health;
  return absl::OkStatus();
}

}  // namespace powersweep
