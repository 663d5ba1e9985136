// ModelWalker: walks a convolutional network layer by layer, tracking the
// shape of the tensor between layers (channels x height x width of one
// sample) and adding up what each layer costs: multiply-accumulates (conv
// and linear layers only; those of depthwise convolutions also apart),
// trainable parameters and their tensors,
// activation values written (every layer's output, including in-place
// activations and residual adds, since each is read and written once) and
// forward GPU kernels (one per layer; flatten is a view and costs none).
// Finish() turns the totals into a ModelCost (model_cost.h).
//
// Output sizes follow PyTorch: conv and pools (floor((h + 2p - k) / s)
// + 1; ceil instead for a ceil-mode max pool, as long as the last window
// starts inside the input), adaptive average pool to a fixed size (a 1x1
// input to a 7x7 pool is replicated, as VGG at 32x32 does).
//
// Branching blocks (Inception, SqueezeNet's Fire) walk each branch from
// the block's input (set_shape) and join them with Concat, which writes
// the concatenated tensor (one kernel). Heads that run in training only
// (Inception-v3's auxiliary classifier) are walked between
// BeginTrainingOnly and EndTrainingOnly: their parameters count as usual
// (they are trained), their MACs, activations and kernels go to the
// train_only_* fields of ModelCost instead of the forward pass's.
//
// A plain value used from one thread.
#ifndef POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_WALKER_H_
#define POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_WALKER_H_

#include <string>
#include <vector>

#include "agent/platform/twin/model_cost.h"

namespace powersweep {

struct TensorShape {
  int channels = 0;
  int height = 0;
  int width = 0;
  double Values() const {
    return static_cast<double>(channels) * height * width;
  }
};

class ModelWalker {
 public:
  ModelWalker(std::string name, const ModelInput& input);

  // Conv2d(channels -> out_channels, kernel x kernel, stride, padding,
  // groups); bias only when `bias`.
  void Conv(int out_channels, int kernel, int stride, int padding,
            int groups = 1, bool bias = false);
  // A kernel_h x kernel_w Conv2d (Inception's 1x7, 7x1, 1x3, 3x1) with
  // padding (pad_h, pad_w), no groups, no bias.
  void ConvRect(int out_channels, int kernel_h, int kernel_w, int stride,
                int pad_h, int pad_w);
  void BatchNorm();   // weight and bias per channel; same shape
  void Activation();  // ReLU, Hardswish, Hardsigmoid: same shape
  void MaxPool(int kernel, int stride, int padding = 0, bool ceil = false);
  // AvgPool2d (padding counted in the average, PyTorch's default).
  void AvgPool(int kernel, int stride, int padding = 0);
  void AdaptiveAvgPool(int out_size);
  // Linear on the flattened tensor (with bias); the shape becomes out x 1 x 1.
  void Linear(int out_features);
  // Elementwise op of two tensors of the current shape (residual add,
  // squeeze-excitation scale).
  void Elementwise();
  // torch::cat of the branch outputs `parts` on the channels (all of the
  // same height and width); the shape becomes their concatenation.
  void Concat(const std::vector<TensorShape>& parts);
  void BeginTrainingOnly() { training_only_ = true; }
  void EndTrainingOnly() { training_only_ = false; }
  // A layer the methods above do not describe (embeddings, layer norms,
  // attention, per-token linear layers): its MACs, trainable parameters in
  // `param_tensors` tensors, values written and forward kernels. The shape
  // is left to the caller (set_shape).
  void Custom(double macs, double params, int param_tensors,
              double values_written, int kernels);

  const TensorShape& shape() const { return shape_; }
  // Branches (residual paths) rewind to the shape they started from.
  void set_shape(const TensorShape& shape) { shape_ = shape; }

  ModelCost Finish() const;

 private:
  void Wrote(double values);
  void AddMacs(double macs);

  ModelCost cost_;
  TensorShape shape_;
  bool training_only_ = false;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_TWIN_MODEL_WALKER_H_
