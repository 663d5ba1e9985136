#include "agent/platform/twin/model_walker.h"

#include <utility>

namespace powersweep {

ModelWalker::ModelWalker(std::string name, const ModelInput& input) {
  cost_.name = std::move(name);
  cost_.input = input;
  shape_ = {input.channels, input.size, input.size};
  cost_.input_values = shape_.Values();
}

void ModelWalker::Wrote(double values) {
  if (training_only_) {
    cost_.train_only_activations += values;
    ++cost_.train_only_kernels;
    return;
  }
  cost_.activations += values;
  ++cost_.forward_kernels;
}

void ModelWalker::AddMacs(double macs) {
  (training_only_ ? cost_.train_only_macs : cost_.forward_macs) += macs;
}

namespace {

// PyTorch's pooling output size: floor, or ceil when the last window still
// starts inside the (left-padded) input.
int PoolOut(int in, int kernel, int stride, int padding, bool ceil) {
  const int span = in + 2 * padding - kernel;
  int out = span / stride + 1;
  if (ceil && span % stride != 0) {
    ++out;
    if ((out - 1) * stride >= in + padding) --out;
  }
  return out;
}

}  // namespace

void ModelWalker::Conv(int out_channels, int kernel, int stride, int padding,
                       int groups, bool bias) {
  const int in_channels = shape_.channels;
  const double in_per_group = static_cast<double>(in_channels) / groups;
  shape_.channels = out_channels;
  shape_.height = (shape_.height + 2 * padding - kernel) / stride + 1;
  shape_.width = (shape_.width + 2 * padding - kernel) / stride + 1;
  const double taps = in_per_group * kernel * kernel;
  AddMacs(shape_.Values() * taps);
  if (groups > 1 && groups == in_channels && !training_only_) {
    cost_.depthwise_macs += shape_.Values() * taps;
  }
  cost_.params += out_channels * taps + (bias ? out_channels : 0);
  cost_.param_tensors += bias ? 2 : 1;
  Wrote(shape_.Values());
}

void ModelWalker::ConvRect(int out_channels, int kernel_h, int kernel_w,
                           int stride, int pad_h, int pad_w) {
  const double taps = static_cast<double>(shape_.channels) * kernel_h * kernel_w;
  shape_.channels = out_channels;
  shape_.height = (shape_.height + 2 * pad_h - kernel_h) / stride + 1;
  shape_.width = (shape_.width + 2 * pad_w - kernel_w) / stride + 1;
  AddMacs(shape_.Values() * taps);
  cost_.params += out_channels * taps;
  cost_.param_tensors += 1;
  Wrote(shape_.Values());
}

void ModelWalker::BatchNorm() {
  cost_.params += 2.0 * shape_.channels;
  cost_.param_tensors += 2;
  Wrote(shape_.Values());
}

void ModelWalker::Activation() { Wrote(shape_.Values()); }

void ModelWalker::MaxPool(int kernel, int stride, int padding, bool ceil) {
  shape_.height = PoolOut(shape_.height, kernel, stride, padding, ceil);
  shape_.width = PoolOut(shape_.width, kernel, stride, padding, ceil);
  Wrote(shape_.Values());
}

void ModelWalker::AvgPool(int kernel, int stride, int padding) {
  MaxPool(kernel, stride, padding);  // same shape, one kernel
}

void ModelWalker::AdaptiveAvgPool(int out_size) {
  shape_.height = out_size;
  shape_.width = out_size;
  Wrote(shape_.Values());
}

void ModelWalker::Linear(int out_features) {
  const double in = shape_.Values();
  shape_ = {out_features, 1, 1};
  AddMacs(in * out_features);
  cost_.params += in * out_features + out_features;
  cost_.param_tensors += 2;
  Wrote(out_features);
}

void ModelWalker::Elementwise() { Wrote(shape_.Values()); }

void ModelWalker::Concat(const std::vector<TensorShape>& parts) {
  TensorShape out = parts.empty() ? shape_ : parts.front();
  out.channels = 0;
  for (const TensorShape& p : parts) out.channels += p.channels;
  shape_ = out;
  Wrote(shape_.Values());
}

void ModelWalker::Custom(double macs, double params, int param_tensors,
                         double values_written, int kernels) {
  cost_.forward_macs += macs;
  cost_.params += params;
  cost_.param_tensors += param_tensors;
  cost_.activations += values_written;
  cost_.forward_kernels += kernels;
}

ModelCost ModelWalker::Finish() const {
  ModelCost c = cost_;
  const int forward = c.forward_kernels;
  c.infer_kernels = forward + 1;
  c.train_kernels = forward + 2 + 2 * forward + 3 * c.param_tensors;
  if (c.train_only_kernels > 0) {
    // The head's forward and backward, and its weighted loss (log_softmax,
    // nll, scale, add).
    c.train_kernels += 3 * c.train_only_kernels + 4;
  }
  return c;
}

}  // namespace powersweep
