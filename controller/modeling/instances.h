// Device instances in the models: how a fit treats the devices that ran a
// workload, and a device's calibration offsets applied to predictions.
//
// Fits (FitModelsRequest.instances):
// - pooled (default): every device's runs as one class, as measured.
// - offsets: each run's epoch time divided by its device's "time" offset
//   and its epoch energy by its "energy" offset (Store::ListDeviceOffsets,
//   saved by `powersweep variability --save-offsets`), so the class model
//   describes the mean instance. A device without offsets is used as
//   measured, with a note. No offsets at all: FailedPrecondition.
// - per_device: one model per (workload, device), of that device's runs.
// Predictions for a device (PredictRequest.device_id) use its own model
// when there is one, else the class model with every time multiplied by
// the device's time offset and every energy by its energy offset (power
// by energy / time).
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_INSTANCES_H_
#define POWERSWEEP_CONTROLLER_MODELING_INSTANCES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controller/modeling/observations.h"
#include "controller/modeling/predict.h"
#include "powersweep/v1/modeling.pb.h"

namespace powersweep::modeling {

enum class Instances { kPooled, kOffsets, kPerDevice };

// "" or "pooled", "offsets", "per_device" (or "per-device"); InvalidArgument
// naming `instances` otherwise.
absl::StatusOr<Instances> ParseInstances(const std::string& text);
// "pooled", "offsets", "device" (WorkloadModel.instances).
std::string InstancesName(Instances i);

// A group ready to fit, and what the fitted model should say about it.
struct InstanceGroup {
  ObservationGroup group;
  std::string device_id;                        // per_device
  std::vector<v1::DeviceOffset> applied;        // offsets
  std::vector<std::string> notes;
};

// The groups to fit for `groups` under `how`, with `offsets` (of every
// device) for kOffsets.
absl::StatusOr<std::vector<InstanceGroup>> InstanceGroups(
    const std::vector<ObservationGroup>& groups, Instances how,
    const std::vector<v1::DeviceOffset>& offsets);

// A device's factors: time and energy (1 when absent) and what they are.
struct DeviceScale {
  double time = 1;
  double energy = 1;
  std::string note;  // "calibration offsets of xa-02 applied: time x1.150, ..."
};
// The scale of `device_id` from its offsets; FailedPrecondition naming the
// device when it has none.
absl::StatusOr<DeviceScale> ScaleOf(const std::string& device_id,
                                    const std::vector<v1::DeviceOffset>& offsets);
// `p` for a device of `scale`: times, energies and powers (and their
// intervals) multiplied.
void ApplyScale(const DeviceScale& scale, ModePrediction* p);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_INSTANCES_H_
