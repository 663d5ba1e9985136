#include "workloads/models/resnet.h"

#include "workloads/models/building_blocks.h"

namespace powersweep {
namespace {

namespace nn = torch::nn;

// torchvision's BasicBlock (expansion 1) when `bottleneck` is false, its
// Bottleneck (1x1 reduce, 3x3 with the stride, 1x1 expand x4) when true.
class ResidualBlockImpl : public nn::Module {
 public:
  ResidualBlockImpl(int64_t in, int64_t planes, int64_t stride,
                    bool bottleneck) {
    const int64_t out = bottleneck ? planes * 4 : planes;
    if (bottleneck) {
      conv1_ = register_module("conv1", MakeConv({in, planes, 1}));
      bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
      conv2_ = register_module("conv2",
                               MakeConv({planes, planes, 3, stride, 1}));
      bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
      conv3_ = register_module("conv3", MakeConv({planes, out, 1}));
      bn3_ = register_module("bn3", nn::BatchNorm2d(out));
    } else {
      conv1_ = register_module("conv1", MakeConv({in, planes, 3, stride, 1}));
      bn1_ = register_module("bn1", nn::BatchNorm2d(planes));
      conv2_ = register_module("conv2", MakeConv({planes, planes, 3, 1, 1}));
      bn2_ = register_module("bn2", nn::BatchNorm2d(planes));
    }
    if (stride != 1 || in != out) {
      downsample_ = register_module(
          "downsample",
          nn::Sequential(MakeConv({in, out, 1, stride}), nn::BatchNorm2d(out)));
    }
  }

  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor y = torch::relu(bn1_(conv1_(x)));
    y = bn2_(conv2_(y));
    if (conv3_) y = bn3_(conv3_(torch::relu(y)));
    y = y + (downsample_ ? downsample_->forward(x) : x);
    return torch::relu(y);
  }

 private:
  MacConv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(ResidualBlock);

// torchvision's ResNet._make_layer: `blocks` blocks, the first one strided.
nn::Sequential MakeLayer(int64_t* in, int64_t planes, int blocks,
                         int64_t stride, bool bottleneck) {
  nn::Sequential layer;
  for (int i = 0; i < blocks; ++i) {
    layer->push_back(ResidualBlock(*in, planes, i == 0 ? stride : 1,
                                   bottleneck));
    *in = bottleneck ? planes * 4 : planes;
  }
  return layer;
}

}  // namespace

ResNet::ResNet(const ResolvedModel& shape, Depth depth) : Model(shape) {
  const bool bottleneck = depth == Depth::k50;
  const int blocks[4] = {bottleneck ? 3 : 2, bottleneck ? 4 : 2,
                         bottleneck ? 6 : 2, bottleneck ? 3 : 2};
  const int64_t channels = shape.input_shape[0];
  conv1_ = register_module("conv1", MakeConv({channels, 64, 7, 2, 3}));
  bn1_ = register_module("bn1", nn::BatchNorm2d(64));
  int64_t in = 64;
  layer1_ = register_module("layer1",
                            MakeLayer(&in, 64, blocks[0], 1, bottleneck));
  layer2_ = register_module("layer2",
                            MakeLayer(&in, 128, blocks[1], 2, bottleneck));
  layer3_ = register_module("layer3",
                            MakeLayer(&in, 256, blocks[2], 2, bottleneck));
  layer4_ = register_module("layer4",
                            MakeLayer(&in, 512, blocks[3], 2, bottleneck));
  fc_ = register_module("fc", MacLinear(in, shape.num_classes));
  InitTorchvisionWeights(*this, LinearInit::kTorchDefault);
}

torch::Tensor ResNet::forward(torch::Tensor x) {
  x = torch::relu(bn1_(conv1_(x)));
  x = torch::max_pool2d(x, /*kernel_size=*/3, /*stride=*/2, /*padding=*/1);
  x = layer4_->forward(layer3_->forward(layer2_->forward(layer1_->forward(x))));
  x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
  return fc_(x);
}

}  // namespace powersweep
