#include "workloads/pipeline/loader.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "workloads/pipeline/epoch_order.h"
#include "workloads/torch_status.h"

namespace powersweep {

absl::StatusOr<std::unique_ptr<Loader>> Loader::Create(
    const Dataset* data, const LoaderOptions& options) {
  if (options.batch_size < 1 || options.batch_size > data->size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "batch size %d must be between 1 and the %d samples of the %s split "
        "of %s",
        options.batch_size, data->size(), SplitName(data->split()),
        data->path()));
  }
  if (options.workers < 0 || options.prefetch_depth < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "loader workers (%d) and prefetch depth (%d) must be >= 0",
        options.workers, options.prefetch_depth));
  }
  std::unique_ptr<Loader> loader(new Loader(data, options));
  Loader* raw = loader.get();
  absl::Status started = CatchTorchErrors("starting loader workers", [raw] {
    for (int i = 0; i < raw->options_.workers; ++i) {
      raw->threads_.emplace_back([raw] { raw->WorkerLoop(); });
    }
    return absl::OkStatus();
  });
  if (!started.ok()) return started;  // ~Loader joins those that started
  return loader;
}

Loader::Loader(const Dataset* data, const LoaderOptions& options)
    : data_(data),
      options_(options),
      batches_per_epoch_(data->size() /
                         std::max<int64_t>(options.batch_size, 1)),
      depth_(options.prefetch_depth > 0 ? options.prefetch_depth
                                        : std::max(1, 2 * options.workers)) {}

Loader::~Loader() { StopAndJoin(); }

void Loader::StopAndJoin() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::shared_ptr<const std::vector<int32_t>> Loader::OrderForEpochLocked(
    int64_t epoch) {
  auto it = orders_.find(epoch);
  if (it != orders_.end()) {
    std::shared_ptr<const std::vector<int32_t>> order = it->second;
    // Another thread is running the epoch's start hook: wait for it.
    auto started = [this, epoch]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return epochs_starting_.count(epoch) == 0;
    };
    mu_.Await(absl::Condition(&started));
    return order;
  }
  auto order = std::make_shared<const std::vector<int32_t>>(
      EpochOrder(static_cast<int32_t>(data_->size()), options_.shuffle,
                 options_.seed, epoch));
  orders_.emplace(epoch, order);
  // Epochs before the one being delivered are no longer needed.
  const int64_t delivering = next_deliver_ / batches_per_epoch_;
  orders_.erase(orders_.begin(), orders_.lower_bound(delivering));
  if (options_.on_epoch_start) {
    epochs_starting_.insert(epoch);
    // The earlier epochs' minibatches still being read finish first.
    const int64_t first = epoch * batches_per_epoch_;
    auto earlier_read = [this, first]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stop_ || building_.empty() || *building_.begin() >= first;
    };
    mu_.Await(absl::Condition(&earlier_read));
    mu_.Unlock();
    options_.on_epoch_start(epoch);
    mu_.Lock();
    epochs_starting_.erase(epoch);
  }
  return order;
}

absl::StatusOr<Minibatch> Loader::Build(int64_t seq,
                                        const std::vector<int32_t>& order) {
  const int64_t epoch = seq / batches_per_epoch_;
  const int64_t pos = (seq % batches_per_epoch_) * options_.batch_size;
  absl::StatusOr<Minibatch> mb = absl::UnknownError("not built");
  absl::Status st =
      CatchTorchErrors(absl::StrFormat("building minibatch %d", seq), [&] {
        mb = BuildMinibatch(*data_, order.data() + pos, options_.batch_size,
                            options_.seed, epoch, pos);
        if (mb.ok() && options_.pin_memory) {
          mb->images = mb->images.pin_memory();
          mb->labels = mb->labels.pin_memory();
        }
        return absl::OkStatus();
      });
  if (!st.ok()) return st;
  if (!mb.ok()) {
    return absl::Status(mb.status().code(),
                        absl::StrFormat("minibatch %d (epoch %d): %s", seq,
                                        epoch, mb.status().message()));
  }
  mb->index = seq;
  mb->epoch = epoch;
  return mb;
}

void Loader::WorkerLoop() {
  while (true) {
    int64_t seq;
    std::shared_ptr<const std::vector<int32_t>> order;
    {
      absl::MutexLock lock(&mu_);
      auto can_claim = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stop_ || next_claim_ < next_deliver_ + depth_;
      };
      mu_.Await(absl::Condition(&can_claim));
      if (stop_) return;
      seq = next_claim_++;
      order = OrderForEpochLocked(seq / batches_per_epoch_);
      building_.insert(seq);
    }
    absl::StatusOr<Minibatch> mb = Build(seq, *order);
    absl::MutexLock lock(&mu_);
    building_.erase(seq);
    ready_.emplace(seq, std::move(mb));
  }
}

absl::StatusOr<Minibatch> Loader::Next() {
  if (threads_.empty()) {
    std::shared_ptr<const std::vector<int32_t>> order;
    int64_t seq = 0;  // GCC 13 -Wmaybe-uninitialized cannot see the block
    {
      absl::MutexLock lock(&mu_);
      seq = next_deliver_;
      order = OrderForEpochLocked(seq / batches_per_epoch_);
      ++next_deliver_;
    }
    return Build(seq, *order);
  }
  absl::MutexLock lock(&mu_);
  auto is_ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return ready_.count(next_deliver_) > 0;
  };
  mu_.Await(absl::Condition(&is_ready));
  auto it = ready_.find(next_deliver_);
  absl::StatusOr<Minibatch> mb = std::move(it->second);
  ready_.erase(it);
  ++next_deliver_;
  return mb;
}

}  // namespace powersweep
