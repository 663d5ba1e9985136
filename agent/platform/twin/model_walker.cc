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
  cost_.activations += values;
  ++cost_.forward_kernels;
}

void ModelWalker::Conv(int out_channels, int kernel, int stride, int padding,
                       int groups, bool bias) {
  const int in_channels = shape_.channels;
  const double in_per_group = static_cast<double>(in_channels) / groups;
  shape_.channels = out_channels;
  shape_.height = (shape_.height + 2 * padding - kernel) / stride + 1;
  shape_.width = (shape_.width + 2 * padding - kernel) / stride + 1;
  const double taps = in_per_group * kernel * kernel;
  cost_.forward_macs += shape_.Values() * taps;
  if (groups > 1 && groups == in_channels) {
    cost_.depthwise_macs += shape_.Values() * taps;
  }
  cost_.params += out_channels * taps + (bias ? out_channels : 0);
  cost_.param_tensors += bias ? 2 : 1;
  Wrote(shape_.Values());
}

void ModelWalker::BatchNorm() {
  cost_.params += 2.0 * shape_.channels;
  cost_.param_tensors += 2;
  Wrote(shape_.Values());
}

void ModelWalker::Activation() { Wrote(shape_.Values()); }

void ModelWalker::MaxPool(int kernel, int stride, int padding) {
  shape_.height = (shape_.height + 2 * padding - kernel) / stride + 1;
  shape_.width = (shape_.width + 2 * padding - kernel) / stride + 1;
  Wrote(shape_.Values());
}

void ModelWalker::AdaptiveAvgPool(int out_size) {
  shape_.height = out_size;
  shape_.width = out_size;
  Wrote(shape_.Values());
}

void ModelWalker::Linear(int out_features) {
  const double in = shape_.Values();
  shape_ = {out_features, 1, 1};
  cost_.forward_macs += in * out_features;
  cost_.params += in * out_features + out_features;
  cost_.param_tensors += 2;
  Wrote(out_features);
}

void ModelWalker::Elementwise() { Wrote(shape_.Values()); }

ModelCost ModelWalker::Finish() const {
  ModelCost c = cost_;
  const int forward = c.forward_kernels;
  c.infer_kernels = forward + 1;
  c.train_kernels = forward + 2 + 2 * forward + 3 * c.param_tensors;
  return c;
}

}  // namespace powersweep
