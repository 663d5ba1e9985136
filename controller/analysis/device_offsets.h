// Calibration offsets of device instances from a variability report
// (`powersweep variability --save-offsets`; the models apply them,
// controller/modeling/instances.h): per device, how its time and energy
// compare with its class's mean instance.
//
// For each cell with at least 2 devices, a device's ratio is its mean over
// the mean of the cell's device means (each device counts once, as in the
// CV of variability.h). Its offset is the arithmetic mean of its ratios
// over the cells it ran:
//   "time"   from the minibatch time;
//   "energy" from the energy per sample, which within a cell (one batch
//            size) has the ratio of the energy per minibatch.
// factor 1.15: the device's value is 15% above the class mean. Cells with
// one device, and baseload cells (no minibatches), give no ratio.
// Pure functions except SaveDeviceOffsets (writes the store); thread-safe.
#ifndef POWERSWEEP_CONTROLLER_ANALYSIS_DEVICE_OFFSETS_H_
#define POWERSWEEP_CONTROLLER_ANALYSIS_DEVICE_OFFSETS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/analysis/variability.h"
#include "powersweep/v1/modeling.pb.h"
#include "storage/store.h"

namespace powersweep {

// One offset per (device, metric) the report gives a ratio for, with the
// device's class, `sweep_id`, the cells and runs it is the mean over and
// `saved_unix_ms`; by device id, then "energy" before "time".
std::vector<v1::DeviceOffset> DeviceOffsetsFrom(const VariabilityReport& report,
                                                int64_t sweep_id,
                                                int64_t saved_unix_ms);

// DeviceOffsetsFrom(`report`, which should hold every metric), stored in
// `store` (Store::SaveDeviceOffsets: each replaces the device's earlier
// offset of that metric). Returns what was saved; none (and no store
// call) when no cell gives a ratio. Store errors as the store returns them.
absl::StatusOr<std::vector<v1::DeviceOffset>> SaveDeviceOffsets(
    Store* store, const VariabilityReport& report, int64_t sweep_id,
    int64_t saved_unix_ms);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_ANALYSIS_DEVICE_OFFSETS_H_
