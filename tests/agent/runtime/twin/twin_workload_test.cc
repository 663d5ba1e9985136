#include "agent/runtime/twin/twin_workload.h"

#include <string>
#include <vector>

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
  EXPECT_EQ(w->dataset, "x");
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

TEST(TwinWorkloadTest, ReadsTheDataSetNameAndFlagsInEitherForm) {
  auto w = ParseTwinWorkload(
      {"bin", "run", "--model=mobilenetv3", "--dataset-path", "twin:gld23k",
       "--task", "infer", "--batch-size=16", "--preload", "--minibatches",
       "5", "--classes", "203", "--input-size=160", "--some-future-flag"});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->model, "mobilenetv3");
  EXPECT_EQ(w->dataset, "gld23k");
  EXPECT_EQ(w->batch_size, 16);
  EXPECT_EQ(w->minibatches, 5);
  EXPECT_EQ(w->classes, 203);
  EXPECT_EQ(w->input_size, 160);
  EXPECT_TRUE(w->preload);
  EXPECT_FALSE(w->drop_page_cache);
}

TEST(TwinWorkloadTest, ReadsThePageCacheAndPreloadKnobs) {
  const std::vector<std::string> base = {
      "bin", "run", "--model", "resnet50", "--dataset-path", "twin:imagenet",
      "--batch-size", "16", "--minibatches", "5"};
  std::vector<std::string> argv = base;
  argv.insert(argv.end(), {"--task", "train", "--page-cache", "drop"});
  auto w = ParseTwinWorkload(argv);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->drop_page_cache);
  EXPECT_FALSE(w->preload);

  argv = base;
  argv.insert(argv.end(), {"--task", "train", "--page-cache", "sometimes"});
  w = ParseTwinWorkload(argv);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--page-cache"), std::string::npos);

  argv = base;
  argv.insert(argv.end(), {"--task", "train", "--preload"});
  w = ParseTwinWorkload(argv);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--preload"), std::string::npos);

  argv = base;
  argv.insert(argv.end(), {"--task", "infer", "--preload", "--preload-limit",
                           "7"});
  w = ParseTwinWorkload(argv);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->preload);
  EXPECT_EQ(w->preload_limit, 7);
}

TEST(TwinWorkloadTest, NeedsADataSetPath) {
  auto w = ParseTwinWorkload({"bin", "run", "--model", "lenet5", "--task",
                              "train", "--batch-size", "8", "--epochs", "1"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--dataset-path"), std::string::npos);
  w = ParseTwinWorkload({"bin", "run", "--model", "lenet5", "--task", "train",
                         "--batch-size", "8", "--epochs", "1", "--classes",
                         "-3", "--dataset-path", "twin:mnist"});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("--classes"), std::string::npos);
}

}  // namespace
}  // namespace powersweep
