#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <utility>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "workloads/models/catalog.h"
#include "workloads/models/describe.h"
#include "workloads/models/model.h"

namespace powersweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

struct StudyShape {
  std::string name;
  std::array<int64_t, 3> input_shape;
  int64_t classes;
};

const StudyShape kStudyShapes[] = {
    {"alexnet", {3, 224, 224}, 1000},  {"inception_v3", {3, 299, 299}, 1000},
    {"lenet5", {1, 28, 28}, 10},       {"mobilenetv3", {3, 224, 224}, 2000},
    {"resnet18", {3, 32, 32}, 10},     {"resnet50", {3, 224, 224}, 1000},
    {"squeezenet1_1", {3, 224, 224}, 1000},
    {"vgg11", {3, 32, 32}, 10},        {"vgg19", {3, 224, 224}, 1000},
};

TEST(ModelZooTest, KnownModelsAreTheStudyModels) {
  EXPECT_EQ(KnownModels(),
            (std::vector<std::string>{
                "alexnet", "deepspeech2", "dqn", "gpt2_small", "inception_v3",
                "lenet5", "lstm_lm", "memnet", "mobilebert", "mobilenetv3",
                "resnet18", "resnet50", "seq2seq", "seq2seq_lstm",
                "squeezenet1_1", "vae", "vgg11", "vgg19"}));
}

TEST(ModelZooTest, EachModelBuildsWithItsStudyDefaultsAndGivesLogits) {
  for (const StudyShape& s : kStudyShapes) {
    SCOPED_TRACE(s.name);
    absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(s.name);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ((*m)->model_name(), s.name);
    EXPECT_EQ((*m)->input_shape(), s.input_shape);
    EXPECT_EQ((*m)->num_classes(), s.classes);
    (*m)->eval();
    torch::NoGradGuard no_grad;
    const auto& c = s.input_shape;
    torch::Tensor y = (*m)->forward(torch::randn({2, c[0], c[1], c[2]}));
    EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, s.classes}));
    EXPECT_TRUE(torch::isfinite(y).all().item<bool>());
  }
}

TEST(ModelZooTest, ClassCountAndInputSizeOptionsShapeTheNetwork) {
  absl::StatusOr<std::shared_ptr<Model>> m =
      MakeModel("resnet18", {/*num_classes=*/100, /*input_size=*/64});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->input_shape(), (std::array<int64_t, 3>{3, 64, 64}));
  (*m)->eval();
  torch::NoGradGuard no_grad;
  EXPECT_EQ((*m)->forward(torch::randn({1, 3, 64, 64})).size(1), 100);
}

TEST(ModelZooTest, MobileNetV3LargeIsAnAlias) {
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel("mobilenet_v3_large");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->model_name(), "mobilenetv3");
}

// Figures from torchvision's model documentation (1000 classes, 224x224;
// inception_v3 299x299, its parameters with the auxiliary classifier):
// parameters exact; GMACs as printed there, to 2 decimals.
struct TorchvisionFact {
  std::string name;
  int64_t params;
  double gmacs;
  int64_t input_size = 224;
};

TEST(ModelZooTest, ParamsAndMacsAt224With1000ClassesMatchTorchvisionDocs) {
  const TorchvisionFact facts[] = {
      {"resnet18", 11'689'512, 1.81},
      {"resnet50", 25'557'032, 4.09},
      {"vgg11", 132'863'336, 7.61},
      {"mobilenetv3", 5'483'032, 0.22},
      {"alexnet", 61'100'840, 0.71},
      {"squeezenet1_1", 1'235'496, 0.35},
      {"vgg19", 143'667'240, 19.63},
      {"inception_v3", 27'161'264, 5.71, 299},
  };
  for (const TorchvisionFact& f : facts) {
    SCOPED_TRACE(f.name);
    absl::StatusOr<ModelDescription> d =
        DescribeModel(f.name, {/*num_classes=*/1000, f.input_size});
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ(d->params, f.params);
    EXPECT_EQ(d->trainable_params, f.params);
    // Within 1%, or within the rounding of the printed figure (0.22 G
    // stands for anything in [0.215, 0.225)).
    const double tolerance = std::max(0.01 * f.gmacs, 0.005);
    EXPECT_NEAR(d->forward_macs / 1e9, f.gmacs, tolerance);
    std::cout << f.name << " at " << f.input_size << "x" << f.input_size
              << ", 1000 classes: " << d->params
              << " params, " << d->forward_macs << " MACs\n";
  }
}

TEST(ModelZooTest, LeNet5CountsMatchItsLayersByHand) {
  absl::StatusOr<ModelDescription> d = DescribeModel("lenet5", {});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params, 61'706);
  // conv1 28*28*6 outputs x 25, conv2 10*10*16 outputs x 150,
  // fc 400*120 + 120*84 + 84*10.
  EXPECT_EQ(d->forward_macs, 117'600 + 240'000 + 48'000 + 10'080 + 840);
}

TEST(ModelZooTest, MacsFollowTheInputSize) {
  absl::StatusOr<ModelDescription> small = DescribeModel("resnet18", {});
  absl::StatusOr<ModelDescription> large =
      DescribeModel("resnet18", {/*num_classes=*/0, /*input_size=*/64});
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_EQ(small->params, large->params);
  // Convolutions scale with the area; only the fc (512 x 10) does not.
  EXPECT_EQ(large->forward_macs - 5120, 4 * (small->forward_macs - 5120));
}

TEST(ModelZooTest, DescribingKeepsTheTrainingFlag) {
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel("lenet5");
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE((*m)->is_training());
  ASSERT_TRUE(DescribeBuiltModel(**m).ok());
  EXPECT_TRUE((*m)->is_training());
}

TEST(ModelZooTest, DescriptionTextGivesTheFigures) {
  ModelDescription d;
  d.name = "resnet50";
  d.params = 25'557'032;
  d.trainable_params = 25'557'032;
  d.forward_macs = 4'089'184'256;
  d.input_shape = {3, 224, 224};
  d.num_classes = 1000;
  const std::string text = FormatModelDescription(d);
  std::cout << text;
  EXPECT_THAT(text, HasSubstr("resnet50\n"));
  EXPECT_THAT(text, HasSubstr("3x224x224"));
  EXPECT_THAT(text, HasSubstr("1000\n"));
  EXPECT_THAT(text, HasSubstr("25,557,032 (25.56 M)"));
  EXPECT_THAT(text, HasSubstr("4,089,184,256 (4.09 G)"));
  EXPECT_THAT(text, HasSubstr("multiply-accumulates of every Conv2d and "
                              "Linear"));
  d.forward_macs = 416'520;
  EXPECT_THAT(FormatModelDescription(d), HasSubstr("416,520 (0.42 M)"));
}

std::string ErrorOf(const std::string& name, ModelOptions options) {
  absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(name, options);
  EXPECT_FALSE(m.ok());
  if (m.ok()) return "";
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(m.status().message());
}

TEST(ModelZooTest, BadOptionsNameTheOption) {
  EXPECT_EQ(ErrorOf("resnet9", {}),
            "--model: unknown model 'resnet9' (known: alexnet, deepspeech2, "
            "dqn, gpt2_small, inception_v3, lenet5, lstm_lm, memnet, "
            "mobilebert, mobilenetv3, resnet18, resnet50, seq2seq, "
            "seq2seq_lstm, squeezenet1_1, vae, vgg11, vgg19)");
  EXPECT_THAT(ErrorOf("resnet18", {/*num_classes=*/1, 0}),
              StartsWith("--classes: 1 is too few for resnet18"));
  EXPECT_THAT(ErrorOf("lenet5", {/*num_classes=*/-3, 0}),
              StartsWith("--classes: -3"));
  EXPECT_THAT(ErrorOf("vgg11", {0, /*input_size=*/16}),
              AllOf(StartsWith("--input-size: 16 is too small for vgg11"),
                    HasSubstr("at least 32")));
  EXPECT_THAT(ErrorOf("resnet50", {0, /*input_size=*/-1}),
              StartsWith("--input-size: -1 is too small"));
  EXPECT_THAT(ErrorOf("lenet5", {0, /*input_size=*/32}),
              StartsWith("--input-size: lenet5 takes 28x28 images only"));
  EXPECT_EQ(CanonicalModelName("vgg16"), "");
}

// The smallest inputs are where the downsampling leaves 1x1 (one less
// fails in torchvision as here).
TEST(ModelZooTest, TooSmallInputsAreRejectedAtEachNetworksMinimum) {
  EXPECT_THAT(ErrorOf("alexnet", {0, /*input_size=*/62}),
              AllOf(StartsWith("--input-size: 62 is too small for alexnet"),
                    HasSubstr("at least 63")));
  EXPECT_THAT(ErrorOf("squeezenet1_1", {0, /*input_size=*/16}),
              HasSubstr("at least 17"));
  EXPECT_THAT(ErrorOf("vgg19", {0, /*input_size=*/31}),
              HasSubstr("at least 32"));
  EXPECT_THAT(ErrorOf("inception_v3", {0, /*input_size=*/74}),
              AllOf(StartsWith("--input-size: 74 is too small for "
                               "inception_v3"),
                    HasSubstr("at least 75")));
  // Training also runs the auxiliary classifier, which needs 299.
  ModelOptions train;
  train.input_size = 298;
  train.train = true;
  EXPECT_THAT(ErrorOf("inception_v3", train),
              AllOf(StartsWith("--input-size: 298 is too small to train "
                               "inception_v3"),
                    HasSubstr("at least 299")));
  for (const auto& [name, size] :
       std::vector<std::pair<std::string, int64_t>>{{"alexnet", 63},
                                                    {"squeezenet1_1", 17},
                                                    {"vgg19", 32},
                                                    {"inception_v3", 75}}) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::shared_ptr<Model>> m =
        MakeModel(name, {/*num_classes=*/10, size});
    ASSERT_TRUE(m.ok()) << m.status();
    (*m)->eval();
    torch::NoGradGuard no_grad;
    EXPECT_EQ((*m)->forward(torch::randn({1, 3, size, size})).sizes(),
              (std::vector<int64_t>{1, 10}));
  }
}

TEST(ModelZooTest, ImageFoldersAreDecodedAtLeastAtTheStudySize) {
  EXPECT_EQ(ImageFolderInputSize("inception_v3"), 299);
  EXPECT_EQ(ImageFolderInputSize("alexnet"), 224);
  EXPECT_EQ(ImageFolderInputSize("resnet18"), 224);  // 32 is CIFAR-10's
}

// The state_dict keys torchvision gives these layers (the full key sets are
// compared with torchvision's in torchvision_parity_test.cc).
TEST(ModelZooTest, ParameterAndBufferNamesAreTorchvisions) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases =
      {{"resnet18",
        {"conv1.weight", "bn1.running_mean", "bn1.num_batches_tracked",
         "layer1.0.conv1.weight", "layer2.0.downsample.0.weight",
         "layer2.0.downsample.1.running_var", "fc.bias"}},
       {"resnet50", {"layer1.0.conv3.weight", "layer4.2.bn3.bias"}},
       {"vgg11", {"features.0.weight", "features.18.bias", "classifier.6.bias"}},
       {"mobilenetv3",
        {"features.0.0.weight", "features.0.1.running_mean",
         "features.4.block.2.fc1.weight", "features.16.1.bias",
         "classifier.3.bias"}},
       {"lenet5", {"conv1.weight", "fc3.bias"}},
       {"alexnet",
        {"features.0.weight", "features.10.bias", "classifier.1.weight",
         "classifier.6.bias"}},
       {"squeezenet1_1",
        {"features.0.weight", "features.3.squeeze.weight",
         "features.12.expand3x3.bias", "classifier.1.weight"}},
       {"vgg19", {"features.34.weight", "classifier.6.bias"}},
       {"inception_v3",
        {"Conv2d_1a_3x3.conv.weight", "Conv2d_1a_3x3.bn.running_var",
         "Mixed_5b.branch_pool.conv.weight",
         "Mixed_6e.branch7x7dbl_5.bn.weight",
         "Mixed_7c.branch3x3dbl_3b.conv.weight", "AuxLogits.conv1.conv.weight",
         "AuxLogits.fc.bias", "fc.weight"}}};
  for (const auto& [name, keys] : cases) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::shared_ptr<Model>> m = MakeModel(name);
    ASSERT_TRUE(m.ok());
    std::vector<std::string> names;
    for (const auto& p : (*m)->named_parameters()) names.push_back(p.key());
    for (const auto& b : (*m)->named_buffers()) names.push_back(b.key());
    for (const std::string& k : keys) {
      EXPECT_THAT(names, ::testing::Contains(k));
    }
  }
}

}  // namespace
}  // namespace powersweep
