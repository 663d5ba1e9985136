// The check both Stores apply to SaveDeviceOffsets (store.h).
#ifndef POWERSWEEP_STORAGE_DEVICE_OFFSETS_CHECK_H_
#define POWERSWEEP_STORAGE_DEVICE_OFFSETS_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep {

// InvalidArgument naming the offset's index and field, else OK.
absl::Status CheckDeviceOffsets(const std::vector<v1::DeviceOffset>& offsets);

}  // namespace powersweep

#endif  // POWERSWEEP_STORAGE_DEVICE_OFFSETS_CHECK_H_
