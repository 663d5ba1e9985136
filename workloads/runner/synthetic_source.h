// SyntheticSource: the minibatches of the `synthetic` data set
// (common/synthetic_dataset.h). One minibatch of `batch_size` random
// samples is made by Model::SyntheticBatch when the source is built (before
// timing starts, from torch's generator, so the run's seed decides it) and
// handed out again for every minibatch, renumbered 0, 1, 2, ... in epoch 0:
// the fetch stall is only the hand-over, as in tf_cnn_benchmarks'
// synthetic mode. Nothing writes to the tensors (the steps read their
// input), so sharing them is safe. Synthetic data has no epochs
// (ValidateRunConfig rejects --epochs with it).
//
// Not thread-safe: used by the compute thread only.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_SYNTHETIC_SOURCE_H_
#define POWERSWEEP_WORKLOADS_RUNNER_SYNTHETIC_SOURCE_H_

#include <cstdint>
#include <limits>

#include "workloads/models/model.h"
#include "workloads/runner/minibatch_source.h"

namespace powersweep {

class SyntheticSource : public MinibatchSource {
 public:
  // May throw c10::Error (allocation): build it inside CatchTorchErrors.
  SyntheticSource(Model& model, int64_t batch_size);

  absl::StatusOr<Minibatch> Next() override;
  // No epochs: the loop never completes one.
  int64_t batches_per_epoch() const override {
    return std::numeric_limits<int64_t>::max();
  }
  // Bytes of the batch's input and label tensors.
  int64_t bytes() const;
  // Moves the batch to pinned host memory (CUDA runs); may throw c10::Error.
  void PinMemory();

 private:
  Minibatch batch_;
  int64_t next_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_SYNTHETIC_SOURCE_H_
