#include "storage/device_offsets_check.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace powersweep {

absl::Status CheckDeviceOffsets(const std::vector<v1::DeviceOffset>& offsets) {
  for (size_t i = 0; i < offsets.size(); ++i) {
    const v1::DeviceOffset& o = offsets[i];
    const std::string at = absl::StrCat("offsets[", i, "]");
    if (o.device_id().empty() || o.device_class().empty() ||
        o.metric().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": device_id, device_class and metric must be set"));
    }
    if (!std::isfinite(o.factor()) || o.factor() <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ".factor: must be finite and positive, got ", o.factor()));
    }
  }
  return absl::OkStatus();
}

}  // namespace powersweep
