#include "workloads/models/counted_layers.h"

#include <torch/torch.h>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(CountedLayersTest, ConvCountsOutputsTimesKernelVolumePerGroup) {
  MacConv2d conv(torch::nn::Conv2dOptions(4, 8, 3).padding(1).groups(2));
  MacCount count;
  conv(torch::zeros({1, 4, 5, 5}));
  // 8x5x5 outputs, each (4 / 2) x 3 x 3 multiply-accumulates.
  EXPECT_EQ(count.macs(), 8 * 5 * 5 * 2 * 3 * 3);
}

TEST(CountedLayersTest, LinearCountsOutputsTimesInputsAndScalesWithBatch) {
  MacLinear fc(7, 3);
  MacCount count;
  fc(torch::zeros({2, 7}));
  EXPECT_EQ(count.macs(), 2 * 3 * 7);
}

TEST(CountedLayersTest, CountsOnlyWhileAliveAndNestedCountsBothSee) {
  MacLinear fc(10, 10);
  fc(torch::zeros({1, 10}));  // no count alive: not recorded anywhere
  MacCount outer;
  fc(torch::zeros({1, 10}));
  {
    MacCount inner;
    fc(torch::zeros({1, 10}));
    EXPECT_EQ(inner.macs(), 100);
  }
  fc(torch::zeros({1, 10}));
  EXPECT_EQ(outer.macs(), 300);
}

TEST(CountedLayersTest, KeepsTorchParameterNames) {
  MacConv2d conv(torch::nn::Conv2dOptions(1, 2, 3));
  std::vector<std::string> names;
  for (const auto& p : conv->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"weight", "bias"}));
}

}  // namespace
}  // namespace powersweep
