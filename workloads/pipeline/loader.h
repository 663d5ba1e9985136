// Loader: delivers the minibatches of a run, in order, prefetched by worker
// threads.
//
// The run is an endless sequence of minibatches 0, 1, 2, ...; minibatch k
// belongs to epoch k / batches_per_epoch(). Each epoch visits the samples in
// EpochOrder(size, shuffle, seed, epoch) (shuffled for training, sequential
// for inference) cut into batch_size pieces; the last partial piece of an
// epoch (size % batch_size samples) is dropped, so every minibatch has
// exactly batch_size samples and every epoch has the same length.
//
// Each sample is loaded by Dataset::Load (read, decode, augment, normalise;
// see minibatch.h) with the augmentation seed
// SampleAugmentationSeed(seed, epoch, position in the epoch's order), so the
// minibatches (order and pixels) depend only on the dataset and the
// options' seed, shuffle and batch_size: never on workers or
// prefetch_depth.
//
// With workers = N > 0, N threads build whole minibatches in parallel; at
// most prefetch_depth minibatches (0 = 2N) are built or being built ahead
// of the one Next() waits for. Next() returns them strictly in sequence
// order regardless of which worker finished first. With workers = 0 there
// are no threads: Next() builds the minibatch on the caller's thread (that
// time is the caller's stall) and prefetch_depth is unused.
//
// A failure to build a minibatch (a corrupt or missing file: the message
// names the file, with the Dataset's code; a torch error) is returned by
// the Next() call for that minibatch, prefixed with the minibatch number.
// Destroying the Loader stops and joins every worker promptly, even when
// the run stops early with minibatches queued.
//
// Thread safety: Next() must be called from one thread at a time; the
// dataset must outlive the Loader and is only read (Dataset::Load is
// thread-safe).
#ifndef POWERSWEEP_WORKLOADS_PIPELINE_LOADER_H_
#define POWERSWEEP_WORKLOADS_PIPELINE_LOADER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "workloads/data/dataset.h"
#include "workloads/pipeline/minibatch.h"

namespace powersweep {

struct LoaderOptions {
  int64_t batch_size = 64;
  int workers = 0;
  int prefetch_depth = 0;  // 0 = 2 * workers (at least 1)
  uint64_t seed = 0;
  bool shuffle = true;  // true for training, false for inference
  // Build each minibatch's tensors in pinned (page-locked) host memory, on
  // the thread that builds it, for fast asynchronous copies to a CUDA
  // device. Only with a CUDA LibTorch and device.
  bool pin_memory = false;
  // Called once per epoch, before any sample of that epoch is read and
  // after every minibatch of the earlier epochs has been read (built), on
  // the thread that claims the epoch's first minibatch (a worker, or
  // Next()'s caller with workers = 0), without the loader's lock: built
  // minibatches of the previous epoch keep flowing to Next() meanwhile.
  // Used for the page cache (drop, residency): a worker still reading the
  // previous epoch's files would put them back after a drop. May be empty.
  std::function<void(int64_t epoch)> on_epoch_start;
};

class Loader {
 public:
  // kInvalidArgument when batch_size < 1 or exceeds the dataset's size,
  // workers < 0 or prefetch_depth < 0; kInternal when threads cannot start.
  static absl::StatusOr<std::unique_ptr<Loader>> Create(
      const Dataset* data, const LoaderOptions& options);

  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // The next minibatch in sequence; blocks until it is built.
  absl::StatusOr<Minibatch> Next();

  int64_t batches_per_epoch() const { return batches_per_epoch_; }

 private:
  Loader(const Dataset* data, const LoaderOptions& options);
  void WorkerLoop();
  // Builds minibatch `seq` using `order` (the order of its epoch).
  absl::StatusOr<Minibatch> Build(int64_t seq,
                                  const std::vector<int32_t>& order);
  std::shared_ptr<const std::vector<int32_t>> OrderForEpochLocked(int64_t epoch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopAndJoin();

  const Dataset* const data_;
  const LoaderOptions options_;
  const int64_t batches_per_epoch_;
  const int64_t depth_;

  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_claim_ ABSL_GUARDED_BY(mu_) = 0;    // next seq to build
  int64_t next_deliver_ ABSL_GUARDED_BY(mu_) = 0;  // next seq Next() returns
  std::map<int64_t, absl::StatusOr<Minibatch>> ready_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::shared_ptr<const std::vector<int32_t>>> orders_
      ABSL_GUARDED_BY(mu_);
  // Epochs whose on_epoch_start is running; their samples wait for it.
  std::set<int64_t> epochs_starting_ ABSL_GUARDED_BY(mu_);
  // Minibatches a worker has claimed and is building (reading).
  std::set<int64_t> building_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // touched only by Create and ~Loader
};

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_PIPELINE_LOADER_H_
