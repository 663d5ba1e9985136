// What one epoch of a workload is, for the epoch time and energy the
// models predict: the dataset split a task reads (train: the train split;
// infer: the test split, as workloads/runner/runner.cc does), its number of
// samples, and the minibatches of one epoch, floor(samples / batch_size)
// (the workload drops the last partial batch).
//
// Dataset sizes are in one table (epoch.cc). A dataset not in it has no
// epoch: figures are then per run of the run's own minibatch count, and
// the definition says so (unit "run").
//
// Pure functions; thread-safe.
#ifndef POWERSWEEP_CONTROLLER_MODELING_EPOCH_H_
#define POWERSWEEP_CONTROLLER_MODELING_EPOCH_H_

#include <cstdint>
#include <string>

#include "powersweep/v1/modeling.pb.h"
#include "powersweep/v1/workload.pb.h"

namespace powersweep::modeling {

// Samples of the split `task` reads; 0 when the dataset is not in the
// table (or the task reads no data).
int64_t SplitSamples(const std::string& dataset, v1::Task task);

// The epoch of (dataset, task, batch_size). `run_minibatches` is used for
// an unknown dataset (unit "run") and otherwise ignored.
v1::EpochDefinition EpochFor(const std::string& dataset, v1::Task task,
                             int32_t batch_size, int64_t run_minibatches);

}  // namespace powersweep::modeling

#endif  // POWERSWEEP_CONTROLLER_MODELING_EPOCH_H_
