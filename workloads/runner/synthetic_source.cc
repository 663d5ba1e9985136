#include "workloads/runner/synthetic_source.h"

#include <utility>

namespace powersweep {

SyntheticSource::SyntheticSource(Model& model, int64_t batch_size) {
  auto [input, labels] = model.SyntheticBatch(batch_size);
  batch_.images = std::move(input);
  batch_.labels = std::move(labels);
  batch_.samples = batch_size;
}

absl::StatusOr<Minibatch> SyntheticSource::Next() {
  Minibatch mb = batch_;
  mb.index = next_++;
  mb.epoch = 0;
  return mb;
}

void SyntheticSource::PinMemory() {
  batch_.images = batch_.images.pin_memory();
  batch_.labels = batch_.labels.pin_memory();
}

int64_t SyntheticSource::bytes() const {
  return static_cast<int64_t>(
      batch_.images.numel() * batch_.images.element_size() +
      batch_.labels.numel() * batch_.labels.element_size());
}

}  // namespace powersweep
