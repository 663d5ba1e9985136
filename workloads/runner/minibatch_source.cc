#include "workloads/runner/minibatch_source.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace powersweep {

absl::StatusOr<std::unique_ptr<PreloadedSource>> PreloadedSource::Build(
    Loader& loader, int64_t count) {
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("preload: need at least 1 minibatch, got ", count));
  }
  std::vector<Minibatch> batches;
  batches.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    absl::StatusOr<Minibatch> mb = loader.Next();
    if (!mb.ok()) return mb.status();
    batches.push_back(*std::move(mb));
  }
  return std::unique_ptr<PreloadedSource>(
      new PreloadedSource(std::move(batches), loader.batches_per_epoch()));
}

absl::StatusOr<Minibatch> PreloadedSource::Next() {
  Minibatch mb = batches_[static_cast<size_t>(next_ % size())];
  mb.index = next_;
  mb.epoch = next_ / batches_per_epoch_;
  ++next_;
  return mb;
}

int64_t PreloadedSource::bytes() const {
  int64_t total = 0;
  for (const Minibatch& mb : batches_) {
    total += static_cast<int64_t>(mb.images.numel() * mb.images.element_size());
  }
  return total;
}

}  // namespace powersweep
