// MemoryStore: calibration offsets of device instances.
#include "common/status_macros.h"
#include "storage/device_offsets_check.h"
#include "storage/memory_store.h"

namespace powersweep {

absl::Status MemoryStore::SaveDeviceOffsets(
    const std::vector<v1::DeviceOffset>& offsets) {
  PS_RETURN_IF_ERROR(CheckDeviceOffsets(offsets));
  absl::MutexLock lock(&mu_);
  for (const v1::DeviceOffset& o : offsets) {
    offsets_[{o.device_id(), o.metric()}] = o;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::DeviceOffset>> MemoryStore::ListDeviceOffsets(
    const std::string& device_id) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::DeviceOffset> out;
  for (const auto& [key, o] : offsets_) {
    if (device_id.empty() || key.first == device_id) out.push_back(o);
  }
  return out;
}

}  // namespace powersweep
