// MinibatchSource: where the timed loop takes its minibatches from.
//
// LoaderSource hands out the Loader's minibatches as they are built (the
// fetch stall is the wait for them). PreloadedSource builds `count`
// minibatches from a Loader BEFORE timing starts and then hands them out in
// a cycle, renumbered 0, 1, 2, ... with epoch = index / batches_per_epoch:
// inference on images already in memory, as the HiPC study measures it
// (images "arriving over the network"). Its tensors are shared, not
// copied, so it is for inference only (nothing writes to them).
//
// Not thread-safe: used by the compute thread only.
#ifndef POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_SOURCE_H_
#define POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_SOURCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "workloads/pipeline/loader.h"
#include "workloads/pipeline/minibatch.h"

namespace powersweep {

class MinibatchSource {
 public:
  virtual ~MinibatchSource() = default;
  virtual absl::StatusOr<Minibatch> Next() = 0;
  virtual int64_t batches_per_epoch() const = 0;
};

class LoaderSource : public MinibatchSource {
 public:
  explicit LoaderSource(std::unique_ptr<Loader> loader)
      : loader_(std::move(loader)) {}
  absl::StatusOr<Minibatch> Next() override { return loader_->Next(); }
  int64_t batches_per_epoch() const override {
    return loader_->batches_per_epoch();
  }

 private:
  std::unique_ptr<Loader> loader_;
};

class PreloadedSource : public MinibatchSource {
 public:
  // Takes `count` (>= 1) minibatches from `loader`; the first error is
  // returned as is (it names the file).
  static absl::StatusOr<std::unique_ptr<PreloadedSource>> Build(
      Loader& loader, int64_t count);

  absl::StatusOr<Minibatch> Next() override;
  int64_t batches_per_epoch() const override { return batches_per_epoch_; }
  int64_t size() const { return static_cast<int64_t>(batches_.size()); }
  // Bytes of the preloaded image tensors.
  int64_t bytes() const;

 private:
  PreloadedSource(std::vector<Minibatch> batches, int64_t batches_per_epoch)
      : batches_(std::move(batches)), batches_per_epoch_(batches_per_epoch) {}

  const std::vector<Minibatch> batches_;
  const int64_t batches_per_epoch_;
  int64_t next_ = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_RUNNER_MINIBATCH_SOURCE_H_
