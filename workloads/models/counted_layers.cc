#include "workloads/models/counted_layers.h"

namespace powersweep {
namespace {

thread_local MacCount* innermost = nullptr;

}  // namespace

MacCount::MacCount() : outer_(innermost) { innermost = this; }

MacCount::~MacCount() { innermost = outer_; }

void AddMacs(int64_t macs) {
  for (MacCount* c = innermost; c != nullptr; c = c->outer_) c->macs_ += macs;
}

torch::Tensor MacConv2dImpl::forward(const torch::Tensor& input) {
  torch::Tensor out = torch::nn::Conv2dImpl::forward(input);
  if (innermost != nullptr) {
    const auto& k = options.kernel_size();
    AddMacs(out.numel() * (options.in_channels() / options.groups()) * (*k)[0] *
            (*k)[1]);
  }
  return out;
}

torch::Tensor MacLinearImpl::forward(const torch::Tensor& input) {
  torch::Tensor out = torch::nn::LinearImpl::forward(input);
  if (innermost != nullptr) AddMacs(out.numel() * options.in_features());
  return out;
}

}  // namespace powersweep
