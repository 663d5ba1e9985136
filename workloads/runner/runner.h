// RunWorkload: one instrumented training or inference run (or, when
// config.model is a kernel, the kernel run of workloads/kernels/
// kernel_runner.h).
//
// Sets torch's intra-op threads (ResolveThreadCount) and seed, opens the
// split of config.dataset_path (OpenDataset: the training split for
// training, the test split for inference; --input-size applies to image
// folders only), builds the model for the set (its classes and sample
// size), moves it to the GPU when LibTorch has CUDA, then writes to `sink`:
// a `started` event (BuildProvenance with the WorkloadInfo of
// workload_info.h), one `minibatch` event per minibatch (timed with
// MinibatchTimer on clock->MonotonicNanos(); see minibatch_timer.h; an
// epoch's first carries the page-cache residency of epoch_page_cache.h)
// and a `finished` event when the first stop condition is reached
// (stop_condition.h). With config.preload the minibatches are built before
// timing starts (minibatch_source.h). Returns the finished event.
//
// Errors: kInvalidArgument for arguments that only the data can refute
// (a batch larger than the split); kNotFound / kDataLoss naming the file for
// missing or corrupt data; kFailedPrecondition when the samples do not fit
// the model (naming the data set and both shapes); kInternal for torch errors and a non-finite
// loss; kUnavailable when a record cannot be written. After an error no
// `finished` event is written. `config` must have passed ValidateRunConfig.
// Runs on the calling thread (plus the loader's workers, joined before
// returning).
#ifndef POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_
#define POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "powersweep/v1/records.pb.h"
#include "workloads/runner/record_sink.h"
#include "workloads/runner/run_config.h"

namespace powersweep {

absl::StatusOr<::powersweep::v1::WorkloadFinished> RunWorkload(
    const RunConfig& config, Clock* clock, RecordSink* sink);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_
