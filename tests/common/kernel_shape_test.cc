#include "common/kernel_shape.h"

#include <string>

#include "absl/strings/match.h"
#include "common/kernel_names.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::string Error(const char* kernel, const char* shape) {
  absl::StatusOr<KernelShape> s = ParseKernelShape(kernel, shape);
  EXPECT_FALSE(s.ok()) << kernel << "/" << shape << " parsed as " << s->Text();
  return s.ok() ? "" : std::string(s.status().message());
}

TEST(KernelShapeTest, EveryTableRowParsesAndPrintsItsShapeBack) {
  int rows[3] = {0, 0, 0};
  for (const KernelTableRow& row : KernelTable()) {
    absl::StatusOr<KernelShape> s = ParseKernelShape(row.kernel, row.name);
    ASSERT_TRUE(s.ok()) << row.kernel << "/" << row.name << ": " << s.status();
    EXPECT_EQ(s->Text(), row.shape) << row.name;
    EXPECT_STREQ(s->FamilyName(), row.kernel);
    for (int i = 0; i < 3; ++i) rows[i] += std::string(row.kernel) == kKernelNames[i];
  }
  for (int n : rows) EXPECT_GE(n, 10);
}

TEST(KernelShapeTest, RowNumbersAreDeepBenchsRows) {
  // gemm_problems.h training_set row 1: (1760, 16, 1760, false, false);
  // row 21 transposes A.
  absl::StatusOr<KernelShape> g = ParseKernelShape("gemm", "deepbench-train-1");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->gemm.m, 1760);
  EXPECT_EQ(g->gemm.n, 16);
  EXPECT_EQ(g->gemm.k, 1760);
  EXPECT_FALSE(g->gemm.transpose_a);
  g = ParseKernelShape("gemm", "deepbench-train-21");
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->gemm.transpose_a);
  // conv_problems.h training_set row 1: (w 700, h 161, c 1, n 4, k 32,
  // s 20, r 5, pads 0, strides 2).
  absl::StatusOr<KernelShape> c = ParseKernelShape("conv", "deepbench-train-1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->conv.w, 700);
  EXPECT_EQ(c->conv.h, 161);
  EXPECT_EQ(c->conv.r, 5);
  EXPECT_EQ(c->conv.s, 20);
  EXPECT_EQ(c->conv.stride_h, 2);
  EXPECT_EQ(c->conv.OutH(), 79);
  EXPECT_EQ(c->conv.OutW(), 341);
  // rnn_problems.h training_set row 14: (512, 32, 25, "lstm").
  absl::StatusOr<KernelShape> r = ParseKernelShape("rnn", "deepbench-train-14");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rnn.cell, RnnCell::kLstm);
  EXPECT_EQ(r->rnn.hidden, 512);
  EXPECT_EQ(r->rnn.batch, 32);
  EXPECT_EQ(r->rnn.steps, 25);
  EXPECT_TRUE(r->rnn.backward);  // training rows time forward + backward
  r = ParseKernelShape("rnn", "deepbench-device-3");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->rnn.backward);
}

TEST(KernelShapeTest, ARowNameTakesAPass) {
  absl::StatusOr<KernelShape> c =
      ParseKernelShape("conv", "deepbench-train-18-bwd-data");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->conv.pass, ConvPass::kBackwardData);
  EXPECT_EQ(c->conv.c, 3);
  c = ParseKernelShape("conv", "deepbench-train-18-bwd-filter");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->conv.pass, ConvPass::kBackwardFilter);
  absl::StatusOr<KernelShape> r =
      ParseKernelShape("rnn", "deepbench-train-14-fwd");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->rnn.backward);
}

TEST(KernelShapeTest, ExplicitShapesInAnyOrderWithDefaults) {
  absl::StatusOr<KernelShape> g = ParseKernelShape("gemm", "k64-m128-n32-nt");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->Text(), "m128-n32-k64-nt");
  EXPECT_TRUE(g->gemm.transpose_b);
  g = ParseKernelShape("gemm", "m1-n2-k3");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->Text(), "m1-n2-k3-nn");
  absl::StatusOr<KernelShape> c =
      ParseKernelShape("conv", "n2-c3-h9-w7-k4-r3-s1-padh1-stridew2");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->Text(),
            "n2-c3-h9-w7-k4-r3-s1-padh1-padw0-strideh1-stridew2-fwd");
  EXPECT_EQ(c->conv.OutH(), 9);
  EXPECT_EQ(c->conv.OutW(), 4);
  absl::StatusOr<KernelShape> r =
      ParseKernelShape("rnn", "gru-h512-b32-t25-fwdbwd");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rnn.cell, RnnCell::kGru);
  EXPECT_EQ(r->rnn.Gates(), 3);
  EXPECT_EQ(r->Text(), "gru-h512-b32-t25-fwdbwd");
}

TEST(KernelShapeTest, BadShapesNameTheFieldAndTheReason) {
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10-n10"), "missing field k"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10-n10-k0"), "k (inner"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10-n10-k10-x3"),
                                "unknown field 'x'"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10-m11-n1-k1"), "twice"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10-n1-k1-tx"),
                                "unknown word 'tx'"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m99999999999-n1-k1"),
                                "outside 0.."));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "m10--n1-k1"), "empty token"));
  EXPECT_TRUE(absl::StrContains(Error("conv", "n8-c3-h2-w2-k4-r3-s3"),
                                "3x3 filter does not fit the 2x2 input"));
  EXPECT_TRUE(absl::StrContains(Error("conv", "n8-c3-h8-w8-k4-r3-s3-stride0"),
                                "stride must be >= 1"));
  EXPECT_TRUE(absl::StrContains(Error("rnn", "h512-b32-t25"),
                                "missing the cell"));
  EXPECT_TRUE(absl::StrContains(Error("rnn", "lstm-gru-h5-b1-t1"),
                                "more than one cell"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", "deepbench-train-999"),
                                "no such row"));
  EXPECT_TRUE(absl::StrContains(Error("gemm", ""), "empty"));
  EXPECT_TRUE(absl::StrContains(Error("lenet5", "m1-n1-k1"), "not a kernel"));
  // 2^24 cubed floats: far past any device.
  EXPECT_TRUE(absl::StrContains(
      Error("gemm", "m16777216-n16777216-k16777216"), "more than the"));
}

TEST(KernelShapeTest, CostsCountTheProducts) {
  KernelCost g = KernelCostOf(*ParseKernelShape("gemm", "m2-n3-k4"));
  EXPECT_DOUBLE_EQ(g.flops, 2 * 2 * 3 * 4);
  EXPECT_DOUBLE_EQ(g.bytes, 4 * (2 * 4 + 4 * 3 + 2 * 3));
  EXPECT_DOUBLE_EQ(g.launches, 1);
  // 1 image, 1 channel 4x4, 2 filters 3x3, no padding: 2x2 output.
  KernelCost c = KernelCostOf(*ParseKernelShape("conv", "n1-c1-h4-w4-k2-r3-s3"));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 2 * 9 * 4);
  KernelCost f = KernelCostOf(*ParseKernelShape("rnn", "lstm-h8-b2-t3-fwd"));
  KernelCost fb = KernelCostOf(*ParseKernelShape("rnn", "lstm-h8-b2-t3-fwdbwd"));
  EXPECT_DOUBLE_EQ(f.flops, 3 * 2 * 2 * 4 * 8 * 16);
  EXPECT_DOUBLE_EQ(fb.flops, 3 * f.flops);
  EXPECT_GT(fb.launches, f.launches);
  // GRU launches more kernels per step than vanilla.
  KernelCost gru = KernelCostOf(*ParseKernelShape("rnn", "gru-h8-b2-t3-fwd"));
  KernelCost van = KernelCostOf(*ParseKernelShape("rnn", "vanilla-h8-b2-t3-fwd"));
  EXPECT_GT(gru.launches, van.launches);
}

}  // namespace
}  // namespace powersweep
