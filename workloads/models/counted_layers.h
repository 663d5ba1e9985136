// Conv2d and Linear layers that report their multiply-accumulates (MACs),
// and the per-thread counter they report to.
//
// MacConv2d / MacLinear are torch::nn::Conv2d / Linear (same options,
// parameters "weight" and "bias", same forward) whose forward also adds
// its MACs to the MacCount alive on the calling thread, if any:
//   Conv2d: output elements x (in_channels / groups) x kernel_h x kernel_w
//   Linear: output elements x in_features
// (bias additions are not counted, as in torchvision's "GFLOPS" column).
// A MacCount covers the forward calls made on its thread while it lives;
// nested counts each see the layers run inside them. clone() of these
// layers yields plain Conv2d / Linear, which do not count.
#ifndef POWERSWEEP_WORKLOADS_MODELS_COUNTED_LAYERS_H_
#define POWERSWEEP_WORKLOADS_MODELS_COUNTED_LAYERS_H_

#include <torch/torch.h>

#include <cstdint>

namespace powersweep {

class MacCount {
 public:
  MacCount();
  ~MacCount();
  MacCount(const MacCount&) = delete;
  MacCount& operator=(const MacCount&) = delete;

  int64_t macs() const { return macs_; }

 private:
  friend void AddMacs(int64_t macs);
  MacCount* outer_;
  int64_t macs_ = 0;
};

// Adds to every MacCount alive on this thread; a no-op without one.
void AddMacs(int64_t macs);

class MacConv2dImpl : public torch::nn::Conv2dImpl {
 public:
  using torch::nn::Conv2dImpl::Conv2dImpl;
  torch::Tensor forward(const torch::Tensor& input);
};
TORCH_MODULE(MacConv2d);

class MacLinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;
  torch::Tensor forward(const torch::Tensor& input);
};
TORCH_MODULE(MacLinear);

}  // namespace powersweep

#endif  // POWERSWEEP_WORKLOADS_MODELS_COUNTED_LAYERS_H_
