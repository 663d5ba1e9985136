// The layer walkers against torchvision's own figures.
//
// Facts: torchvision's parameter counts and its published forward GMACs
// ("GFLOPS" in its model tables and weights metadata, which count one
// multiply-add as one operation) at 3x224x224 with 1,000 classes; and exact
// conv + linear multiply-adds and parameter tensor counts measured with
// forward hooks on torchvision 0.14 (/usr/bin/python3) at the inputs below.
#include "agent/platform/twin/model_cost.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

struct Fact {
  const char* model;
  ModelInput input;
  double params;
  double published_gmacs;  // 0: none published for this input
  double hook_macs;
  int param_tensors;
};

constexpr Fact kFacts[] = {
    {"resnet18", {3, 224, 1000}, 11689512, 1.814, 1814073344, 62},
    {"resnet50", {3, 224, 1000}, 25557032, 4.089, 4089184256, 161},
    {"vgg11", {3, 224, 1000}, 132863336, 7.609, 7609090048, 22},
    {"mobilenetv3", {3, 224, 1000}, 5483032, 0.217, 216589760, 174},
    {"alexnet", {3, 224, 1000}, 61100840, 0.714, 714188480, 16},
    {"squeezenet1_1", {3, 224, 1000}, 1235496, 0.349, 349151936, 52},
    {"vgg19", {3, 224, 1000}, 143667240, 19.632, 19632062464, 38},
    // At its own 299x299, parameters with the auxiliary classifier; MACs of
    // the eval-mode forward pass (without it), as torchvision publishes.
    {"inception_v3", {3, 299, 1000}, 27161264, 5.713, 5713216096, 292},
    // The study inputs (CIFAR-10 32x32, GLD23k with 2,000 classes).
    {"resnet18", {3, 32, 10}, 11181642, 0, 37016576, 62},
    {"vgg11", {3, 32, 10}, 128807306, 0, 272343040, 22},
    {"mobilenetv3", {3, 224, 2000}, 6764032, 0, 217869760, 174},
    {"resnet50", {3, 224, 2000}, 27606032, 0, 4091232256, 161},
    {"squeezenet1_1", {3, 32, 10}, 727626, 0, 2995904, 52},
    {"vgg19", {3, 32, 10}, 139611210, 0, 517709824, 38},
    {"alexnet", {3, 224, 2000}, 65197840, 0, 718284480, 16},
    {"inception_v3", {3, 299, 2000}, 29979264, 0, 5715264096, 292},
};

TEST(ModelCostTest, WalkersMatchTorchvisionParametersAndMacs) {
  for (const Fact& f : kFacts) {
    SCOPED_TRACE(testing::Message() << f.model << " " << f.input.size << "px "
                                    << f.input.classes << " classes");
    absl::StatusOr<ModelCost> c = ModelCostFor(f.model, f.input);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->params, f.params);
    EXPECT_EQ(c->forward_macs, f.hook_macs);
    if (f.published_gmacs > 0) {
      EXPECT_NEAR(c->forward_macs / 1e9, f.published_gmacs,
                  0.01 * f.published_gmacs);
    }
    EXPECT_EQ(c->param_tensors, f.param_tensors);
    EXPECT_EQ(c->input_values, 3.0 * f.input.size * f.input.size);
    if (std::string(f.model) != "inception_v3") {
      EXPECT_EQ(c->train_only_macs, 0);
      EXPECT_EQ(c->train_only_kernels, 0);
    }
  }
}

TEST(ModelCostTest, InceptionsAuxiliaryClassifierCountsInTrainingOnly) {
  // Training-mode minus eval-mode forward-hook MACs of torchvision 0.14's
  // inception_v3 at 299x299, 1,000 classes: conv0 5x5x128x768 + conv1
  // 768x128x25 + fc 768x1000 = 5,683,200.
  ModelCost c = *ModelCostFor("inception_v3");
  EXPECT_EQ(c.input.size, 299);
  EXPECT_EQ(c.train_only_macs, 5683200);
  // avg pool, conv0 + bn + relu, conv1 + bn + relu, pool, fc.
  EXPECT_EQ(c.train_only_kernels, 9);
  EXPECT_GT(c.train_only_activations, 0);
  EXPECT_EQ(c.train_kernels, c.forward_kernels + 2 + 2 * c.forward_kernels +
                                 3 * c.param_tensors +
                                 3 * c.train_only_kernels + 4);
  EXPECT_EQ(c.infer_kernels, c.forward_kernels + 1);
}

TEST(ModelCostTest, BranchingBlocksConcatenateTheirBranches) {
  // SqueezeNet 1.1: 26 convs + 26 ReLUs (8 Fire modules of 3 convs, the stem
  // and the classifier conv), 8 concatenations, 3 max pools, 1 average
  // pool.
  EXPECT_EQ(ModelCostFor("squeezenet1_1")->forward_kernels, 64);
  // AlexNet: 5 convs + 5 ReLUs, 3 pools, adaptive pool, 3 linears + 2
  // ReLUs.
  EXPECT_EQ(ModelCostFor("alexnet")->forward_kernels, 19);
  // VGG-19: 16 convs + 16 ReLUs, 5 pools, adaptive pool, 3 linears + 2.
  EXPECT_EQ(ModelCostFor("vgg19")->forward_kernels, 43);
}

TEST(ModelCostTest, EachNetworkStopsAtItsSmallestInput) {
  EXPECT_TRUE(ModelCostFor("alexnet", {3, 63, 10}).ok());
  EXPECT_FALSE(ModelCostFor("alexnet", {3, 62, 10}).ok());
  EXPECT_TRUE(ModelCostFor("squeezenet1_1", {3, 17, 10}).ok());
  EXPECT_FALSE(ModelCostFor("squeezenet1_1", {3, 16, 10}).ok());
  EXPECT_TRUE(ModelCostFor("vgg19", {3, 32, 10}).ok());
  EXPECT_FALSE(ModelCostFor("vgg19", {3, 31, 10}).ok());
  absl::StatusOr<ModelCost> c = ModelCostFor("inception_v3", {3, 224, 10});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("S >= 299"), std::string::npos);
}

TEST(ModelCostTest, StudyDefaultsAreTheInputsTheStudiesUsed) {
  struct Default {
    const char* model;
    int channels, size, classes;
  };
  for (const Default& d : {Default{"alexnet", 3, 224, 1000},
                           Default{"inception_v3", 3, 299, 1000},
                           Default{"squeezenet1_1", 3, 224, 1000},
                           Default{"vgg19", 3, 224, 1000},
                           Default{"lenet5", 1, 28, 10},
                           Default{"resnet18", 3, 32, 10},
                           Default{"vgg11", 3, 32, 10},
                           Default{"mobilenetv3", 3, 224, 2000},
                           Default{"resnet50", 3, 224, 1000}}) {
    ModelCost c = *ModelCostFor(d.model);
    EXPECT_EQ(c.name, d.model);
    EXPECT_EQ(c.input.channels, d.channels) << d.model;
    EXPECT_EQ(c.input.size, d.size) << d.model;
    EXPECT_EQ(c.input.classes, d.classes) << d.model;
  }
  // resnet18 at 32x32 keeps torchvision's ImageNet stem (7x7/2 conv and
  // 3x3/2 pool): 37 M multiply-adds, not the 0.56 G of the CIFAR variant.
  EXPECT_NEAR(ModelCostFor("resnet18")->forward_macs, 37.0e6, 0.1e6);
}

TEST(ModelCostTest, LeNet5KeepsItsActivationsAndKernelCounts) {
  ModelCost c = *ModelCostFor("lenet5");
  EXPECT_EQ(c.activations, 14602);  // docs/twin-model.md
  EXPECT_EQ(c.forward_kernels, 11);
  EXPECT_EQ(c.param_tensors, 10);
  EXPECT_EQ(c.infer_kernels, 12);
  EXPECT_EQ(c.train_kernels, 65);
}

TEST(ModelCostTest, KernelCountsFollowTheLayers) {
  // resnet18: 20 conv + 20 batch norm + 17 ReLU + 8 adds + max pool +
  // average pool + fc = 68 forward kernels.
  ModelCost r = *ModelCostFor("resnet18");
  EXPECT_EQ(r.forward_kernels, 68);
  EXPECT_EQ(r.infer_kernels, 69);
  EXPECT_EQ(r.train_kernels, 68 + 2 + 2 * 68 + 3 * 62);
  // vgg11: 8 conv + 8 ReLU + 5 pools + adaptive pool + 3 linear + 2 ReLU.
  EXPECT_EQ(ModelCostFor("vgg11")->forward_kernels, 27);
  // Bigger networks write more activations per sample.
  EXPECT_GT(ModelCostFor("resnet50")->activations,
            ModelCostFor("mobilenetv3")->activations);
  EXPECT_GT(ModelCostFor("mobilenetv3")->activations,
            ModelCostFor("lenet5")->activations);
}

TEST(ModelCostTest, OnlyMobileNetHasDepthwiseConvolutions) {
  // The 15 blocks' depthwise convs at 3x224x224: expanded channels x taps x
  // output map, e.g. block 1 16 x 9 x 112 x 112 = 1,806,336.
  EXPECT_DOUBLE_EQ(ModelCostFor("mobilenetv3")->depthwise_macs, 18392640);
  for (const char* m : {"alexnet", "inception_v3", "lenet5", "resnet18",
                        "resnet50", "squeezenet1_1", "vgg11", "vgg19"}) {
    EXPECT_EQ(ModelCostFor(m)->depthwise_macs, 0) << m;
  }
}

// The sequence models against `powersweep-workload describe` (which counts
// on the built network, and whose counts text_parity.py checks against the
// PyTorch references): parameters, MACs and parameter tensors at the
// defaults (lstm_lm 35 tokens of a 33,278 vocabulary; mobilebert 128 of
// 30,522).
TEST(ModelCostTest, SequenceModelsMatchTheBuiltNetworks) {
  ModelCost lm = *ModelCostFor("lstm_lm");
  EXPECT_EQ(lm.input.size, 35);
  EXPECT_EQ(lm.input.classes, 33278);
  EXPECT_EQ(lm.params, 13987678);
  EXPECT_EQ(lm.forward_macs, 255346000);
  EXPECT_EQ(lm.param_tensors, 11);
  ModelCost bert = *ModelCostFor("mobilebert");
  EXPECT_EQ(bert.params, 36596538);
  EXPECT_EQ(bert.forward_macs, 4726587392);
  EXPECT_EQ(bert.param_tensors, 1117);
  // Attention grows with the square of the sequence length.
  ModelCost longer = *ModelCostFor("mobilebert", {1, 512, 30522});
  EXPECT_GT(longer.forward_macs, 4 * bert.forward_macs);
  // The LSTM launches a recurrent GEMM and a gate kernel per time step.
  EXPECT_GT(lm.forward_kernels, 4 * 35);
  ModelCost lm70 = *ModelCostFor("lstm_lm", {1, 70, 33278});
  EXPECT_EQ(lm70.forward_kernels - lm.forward_kernels, 2 * 2 * 35);
  // Out of bounds: named with the limits.
  absl::StatusOr<ModelCost> c = ModelCostFor("mobilebert", {1, 513, 30522});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("1..512"), std::string::npos);
  EXPECT_FALSE(ModelCostFor("lstm_lm", {1, 35, 3}).ok());
  EXPECT_FALSE(ModelCostFor("lstm_lm", {3, 35, 100}).ok());
}

// seq2seq, seq2seq_lstm and memnet against `powersweep-workload describe`
// at their defaults (30 tokens of a 40,000 vocabulary; memnet 8 words per
// sentence, a vocabulary of 23), the figures seq2seq_memnet_test checks
// by hand and fathom_reference.py against torch.nn.
TEST(ModelCostTest, Seq2SeqAndMemNetMatchTheBuiltNetworks) {
  ModelCost s = *ModelCostFor("seq2seq");
  EXPECT_EQ(s.input.size, 30);
  EXPECT_EQ(s.input.classes, 40000);
  EXPECT_EQ(s.params, 47303744);
  EXPECT_EQ(s.forward_macs, 804065280);
  EXPECT_EQ(s.param_tensors, 22);
  // Greedy decoding: kernels per generated token, the decoder's weights
  // read once per step.
  ModelCost s60 = *ModelCostFor("seq2seq", {1, 60, 40000});
  EXPECT_GT(s60.infer_kernels - s.infer_kernels, 30 * 10);
  EXPECT_GT(s.infer_weight_reads, 10);
  EXPECT_LT(s.infer_weight_reads, 30);
  // LSTM cells: a fourth gate's weights and biases and its products.
  ModelCost lstm = *ModelCostFor("seq2seq_lstm");
  EXPECT_EQ(lstm.input.size, 30);
  EXPECT_EQ(lstm.input.classes, 40000);
  EXPECT_EQ(lstm.params, 49142848);
  EXPECT_EQ(lstm.forward_macs, 859115520);
  EXPECT_EQ(lstm.param_tensors, 22);
  EXPECT_EQ(lstm.infer_kernels, s.infer_kernels);
  EXPECT_GT(lstm.activations, s.activations);
  ModelCost m = *ModelCostFor("memnet");
  EXPECT_EQ(m.input.size, 8);
  EXPECT_EQ(m.params, 4 * 23 * 20 + 4 * 50 * 20);
  EXPECT_EQ(m.forward_macs, 3 * 2 * 50 * 20 + 20 * 23);
  EXPECT_EQ(m.param_tensors, 8);
  EXPECT_EQ(m.input_values, 51 * 8);
  absl::StatusOr<ModelCost> c = ModelCostFor("memnet", {1, 65, 23});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("1..64"), std::string::npos);
}

TEST(ModelCostTest, UnknownModelsAndImpossibleInputsAreNamed) {
  absl::StatusOr<ModelCost> c = ModelCostFor("alexnet_v2");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("\"alexnet_v2\""), std::string::npos);
  EXPECT_NE(c.status().message().find("resnet18"), std::string::npos);

  c = ModelCostFor("lenet5", {3, 32, 10});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("lenet5"), std::string::npos);
  EXPECT_NE(c.status().message().find("3x32x32"), std::string::npos);
  EXPECT_FALSE(ModelCostFor("vgg11", {3, 16, 10}).ok());
  EXPECT_FALSE(ModelCostFor("resnet18", {1, 28, 10}).ok());
  EXPECT_FALSE(ModelCostFor("resnet18", {3, 32, 0}).ok());
}

}  // namespace
}  // namespace powersweep
