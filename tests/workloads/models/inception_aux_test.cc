// Inception-v3's auxiliary classifier: trained in training mode (its loss
// is part of the minibatch loss, so gradients reach AuxLogits.*), absent
// in eval mode, and the loss is torchvision's CE(main) + 0.4 x CE(aux).
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "workloads/models/inception_v3.h"
#include "workloads/models/model.h"

namespace powersweep {
namespace {

class InceptionAuxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    torch::manual_seed(3);
    absl::StatusOr<std::shared_ptr<Model>> m =
        MakeModel("inception_v3", {/*num_classes=*/10, /*input_size=*/299});
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = std::dynamic_pointer_cast<InceptionV3>(*m);
    ASSERT_NE(model_, nullptr);
    input_ = torch::randn({2, 3, 299, 299});
    labels_ = torch::tensor({1, 7}, torch::kLong);
  }

  // |gradient| summed over the parameters whose name starts with `prefix`;
  // -1 when none of them has a gradient.
  double GradNorm(const std::string& prefix) const {
    double sum = -1;
    for (const auto& p : model_->named_parameters()) {
      if (p.key().rfind(prefix, 0) != 0 || !p.value().grad().defined()) {
        continue;
      }
      sum = std::max(sum, 0.0) + p.value().grad().abs().sum().item<double>();
    }
    return sum;
  }

  std::shared_ptr<InceptionV3> model_;
  torch::Tensor input_, labels_;
};

TEST_F(InceptionAuxTest, TrainingLossReachesTheAuxiliaryClassifier) {
  model_->train();
  model_->Loss(input_, labels_).backward();
  EXPECT_GT(GradNorm("AuxLogits.fc."), 0);
  EXPECT_GT(GradNorm("AuxLogits.conv0."), 0);
  EXPECT_GT(GradNorm("fc."), 0);
  // Mixed_7* feed only the main head, Mixed_6e both.
  EXPECT_GT(GradNorm("Mixed_6e."), 0);
}

TEST_F(InceptionAuxTest, EvalLossLeavesTheAuxiliaryClassifierOut) {
  model_->eval();
  model_->Loss(input_, labels_).backward();
  EXPECT_EQ(GradNorm("AuxLogits."), -1);  // not even a zero gradient
  EXPECT_GT(GradNorm("fc."), 0);
  EXPECT_FALSE(model_->ForwardWithAux(input_).second.defined());
}

TEST_F(InceptionAuxTest, TrainingLossIsMainPlusFourTenthsAux) {
  model_->train();
  namespace F = torch::nn::functional;
  torch::manual_seed(11);  // the same dropout mask both times
  const double loss = model_->Loss(input_, labels_).item<double>();
  torch::manual_seed(11);
  auto [main, aux] = model_->ForwardWithAux(input_);
  ASSERT_TRUE(aux.defined());
  EXPECT_EQ(aux.sizes(), main.sizes());
  const double main_ce = F::cross_entropy(main, labels_).item<double>();
  const double aux_ce = F::cross_entropy(aux, labels_).item<double>();
  EXPECT_GT(aux_ce, 0);
  EXPECT_NEAR(loss, main_ce + 0.4 * aux_ce, 1e-5 * std::abs(loss));
  // forward() gives the main logits only, in both modes.
  model_->eval();
  torch::NoGradGuard no_grad;
  EXPECT_EQ(model_->forward(input_).sizes(), (std::vector<int64_t>{2, 10}));
}

}  // namespace
}  // namespace powersweep
