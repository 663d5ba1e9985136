// RunWorkload: one instrumented training or inference run.
//
// Sets torch's intra-op threads (ResolveThreadCount) and seed, builds the
// model, loads the split ("train" for training, "test" i.e. t10k for
// inference) from config.dataset_path, then writes to `sink`: a `started`
// event (BuildProvenance), one `minibatch` event per minibatch (timed with
// MinibatchTimer on clock->MonotonicNanos(); see minibatch_timer.h) and a
// `finished` event when the first stop condition is reached
// (stop_condition.h). Returns the finished event.
//
// Errors: kInvalidArgument for arguments that only the data can refute
// (a batch larger than the split); kNotFound / kDataLoss naming the file for
// missing or corrupt data; kFailedPrecondition when the images do not have
// the model's input shape; kInternal for torch errors and a non-finite
// loss; kUnavailable when a record cannot be written. After an error no
// `finished` event is written. `config` must have passed ValidateRunConfig.
// Runs on the calling thread (plus the loader's workers, joined before
// returning).
#ifndef POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_
#define POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "powersweep/v1/powersweep.pb.h"
#include "workloads/runner/record_sink.h"
#include "workloads/runner/run_config.h"

namespace powersweep {

absl::StatusOr<::powersweep::v1::WorkloadFinished> RunWorkload(
    const RunConfig& config, Clock* clock, RecordSink* sink);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_RUNNER_H_
