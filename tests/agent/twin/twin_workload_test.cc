#include "agent/runtime/twin/twin_workload.h"

#include "gtest/gtest.h"

namespace powersweep {
namespace {

TEST(TwinWorkloadTest, ReadsTheWorkloadCommandLine) {
  auto w = ParseTwinWorkload(
      {"bin", "run", "--model", "lenet5", "--dataset-path", "x", "--task",
       "infer", "--batch-size", "32", "--workers", "3", "--epochs", "2",
       "--duration-s", "1.5", "--seed", "9", "--threads", "4",
       "--records-fd", "3"});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->model, "lenet5");
  EXPECT_FALSE(w->train);
  EXPECT_EQ(w->batch_size, 32);
  EXPECT_EQ(w->workers, 3);
  EXPECT_EQ(w->epochs, 2);
  EXPECT_EQ(w->minibatches, 0);
  EXPECT_DOUBLE_EQ(w->duration_s, 1.5);
  EXPECT_EQ(w->seed, 9u);
  EXPECT_EQ(w->threads, 4);
}

TEST(TwinWorkloadTest, NamesTheFlagThatIsWrong) {
  auto w = ParseTwinWorkload({"bin", "run", "--model", "lenet5", "--task",
                              "train", "--batch-size", "0", "--epochs", "1"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--batch-size"), std::string::npos);
  w = ParseTwinWorkload({"bin", "run", "--model", "lenet5", "--task", "train",
                         "--batch-size", "8"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--minibatches"), std::string::npos);
  w = ParseTwinWorkload({"bin", "run", "--model", "lenet5", "--task", "fly",
                         "--batch-size", "8", "--epochs", "1"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--task"), std::string::npos);
}

}  // namespace
}  // namespace powersweep
