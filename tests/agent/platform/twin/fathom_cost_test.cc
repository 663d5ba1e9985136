// The twin's cost models of vae, dqn and gpt2_small against the figures the
// workload's own networks give (workloads/models: describe counts the
// Conv2d / Linear / Conv1D multiply-accumulates with forward hooks, and
// fathom_parity_test checks those against torch.nn references).
#include <cmath>

#include "agent/platform/twin/model_cost.h"
#include "agent/platform/twin/twin_workload_cost.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(FathomCostTest, VaeAndDqnMatchTheWorkloadsCounts) {
  const ModelCost vae = *ModelCostFor("vae");
  EXPECT_EQ(vae.params, 471584);        // describe --model vae
  EXPECT_EQ(vae.forward_macs, 470400);  // 3 x 784 x 200
  EXPECT_EQ(vae.input_values, 784);
  EXPECT_EQ(vae.param_tensors, 6);

  const ModelCost dqn = *ModelCostFor("dqn");
  EXPECT_EQ(dqn.params, 1685667);  // describe --model dqn (3 actions)
  EXPECT_EQ(dqn.forward_macs, 9344512);
  // The sample carries 5 frames; the network reads 4.
  EXPECT_EQ(dqn.input_values, 5 * 84 * 84);
  // The next states' pass: one more forward, no backward.
  EXPECT_EQ(dqn.train_extra_macs, dqn.forward_macs);
  EXPECT_EQ(dqn.infer_extra_macs, dqn.forward_macs);
  EXPECT_GT(dqn.infer_kernels, 2 * dqn.forward_kernels);
  // More actions, a wider last layer.
  EXPECT_EQ(ModelCostFor("dqn", {5, 84, 18})->params, 1685667 + 15 * 513);
}

TEST(FathomCostTest, Gpt2CountsTheLinearLayersAndTheAttention) {
  const ModelCost c = *ModelCostFor("gpt2_small");
  EXPECT_EQ(c.input.size, 128);
  EXPECT_EQ(c.params, 124439808);  // GPT-2 small, the head tied
  const double t = 128;
  const double per_token_linear = 768.0 * 2304 + 768.0 * 768 +
                                  2 * 768.0 * 3072;  // per layer
  const double linear = t * (12 * per_token_linear + 768.0 * 50257);
  const double attention = 12 * 2 * t * t * 768;
  EXPECT_EQ(c.forward_macs, linear + attention);
  // Generation: 15 more tokens, each one position through every layer,
  // attending to 129..143 cached positions, and one more read of the
  // weights per token.
  double decode = 0;
  for (int i = 1; i < 16; ++i) {
    decode += 12 * per_token_linear + 768.0 * 50257 +
              12 * 2 * (t + i) * 768;
  }
  EXPECT_EQ(c.infer_extra_macs, decode);
  EXPECT_EQ(c.train_extra_macs, 0);
  EXPECT_EQ(c.infer_weight_reads, 16);
  EXPECT_GT(c.infer_kernels, 16 * 12 * 10);
  // Attention grows with the square of the sequence.
  const ModelCost longer = *ModelCostFor("gpt2_small", {1, 512, 50257});
  EXPECT_EQ(longer.forward_macs,
            512 * (12 * per_token_linear + 768.0 * 50257) +
                12 * 2 * 512.0 * 512 * 768);
}

TEST(FathomCostTest, InputsTheNetworksCannotTakeAreNamed) {
  for (const auto& [model, input] :
       {std::pair<const char*, ModelInput>{"vae", {3, 32, 10}},
        {"dqn", {1, 28, 10}},
        {"gpt2_small", {1, 1024, 50257}},
        {"gpt2_small", {1, 128, 1000}}}) {
    absl::StatusOr<ModelCost> c = ModelCostFor(model, input);
    ASSERT_FALSE(c.ok()) << model;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(c.status().message().find(model), std::string::npos);
  }
}

TEST(FathomCostTest, TheModelsRunOnTheirDataSets) {
  EXPECT_TRUE(TwinWorkloadCostFor("vae", "fashion-mnist").ok());
  EXPECT_TRUE(TwinWorkloadCostFor("vae", "mnist").ok());
  absl::StatusOr<TwinWorkloadCost> dqn =
      TwinWorkloadCostFor("dqn", "catch-frames");
  ASSERT_TRUE(dqn.ok()) << dqn.status();
  EXPECT_EQ(dqn->dataset.train.samples, 2000);
  EXPECT_EQ(dqn->model.input.classes, 3);
  absl::StatusOr<TwinWorkloadCost> wrong =
      TwinWorkloadCostFor("dqn", "fashion-mnist");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("dqn cannot run on dataset "
                                          "fashion-mnist"),
            std::string::npos);
  EXPECT_FALSE(TwinWorkloadCostFor("lenet5", "catch-frames").ok());
  EXPECT_FALSE(TwinWorkloadCostFor("gpt2_small", "cifar10").ok());
}

}  // namespace
}  // namespace powersweep
