// What the `started` record says about the workload: the network as built
// (parameters and forward MACs counted on it, describe.h), the data set as
// opened (format, split size, bytes on disk, whether it is read per
// sample), the storage medium behind the data set path (storage_medium.h),
// the page-cache policy, preloading and the compute device.
// (For synthetic data, CollectSyntheticWorkloadInfo below.)
//
// CollectWorkloadInfo runs one batch-1 forward pass to count MACs, so call
// it before the run's threads use the model. A medium that cannot be
// described is logged and left empty (kind "unknown"); only a failure to
// count the model is an error. Not thread-safe with respect to `model`.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_WORKLOAD_INFO_H_
#define POWERSWEEP_WORKLOADS_RUNNER_WORKLOAD_INFO_H_

#include <string>

#include "absl/status/statusor.h"
#include "powersweep/v1/records.pb.h"
#include "workloads/data/dataset.h"
#include "workloads/models/model.h"
#include "workloads/runner/run_config.h"

namespace powersweep {

absl::StatusOr<::powersweep::v1::WorkloadInfo> CollectWorkloadInfo(
    Model& model, const Dataset& data, const RunConfig& config,
    const std::string& compute_device);

// The same for the `synthetic` data set (common/synthetic_dataset.h):
// format and path "synthetic", one minibatch of samples, no bytes on disk,
// storage kind "memory", not preloaded (it is made in memory anyway), the
// page cache untouched.
absl::StatusOr<::powersweep::v1::WorkloadInfo> CollectSyntheticWorkloadInfo(
    Model& model, const RunConfig& config, const std::string& compute_device);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_WORKLOAD_INFO_H_
