// compare --by runtime --sides A,B: any two of native, container and vm,
// the baseline first; runs of a third runtime are on neither side, and a
// vm run's VM size is not part of its cell.
#include <string>
#include <vector>

#include "controller/analysis/compare_cells.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

v1::RunSpec RunOf(v1::Runtime runtime) {
  v1::RunSpec s;
  s.set_device_class("host");
  s.mutable_workload()->set_model("lenet5");
  s.mutable_workload()->set_dataset("fashion-mnist");
  s.mutable_workload()->set_task(v1::TASK_TRAIN);
  s.set_runtime(runtime);
  if (runtime == v1::RUNTIME_VM) s.mutable_vm()->set_memory_mib(4096);
  if (runtime == v1::RUNTIME_CONTAINER) s.set_container_image("img");
  return s;
}

TEST(CompareSidesTest, NativeAgainstVmPutsContainerRunsOnNeitherSide) {
  absl::StatusOr<CompareDimension> d =
      ParseCompareDimension("runtime", {}, {"native", "vm"});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(BaselineLabel(*d), "native");
  EXPECT_EQ(OtherLabel(*d), "vm");
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_NATIVE), "h"), Side::kBaseline);
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_UNSPECIFIED), "h"), Side::kBaseline);
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_VM), "h"), Side::kOther);
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_CONTAINER), "h"), std::nullopt);
  // The three runtimes' runs of one workload are one cell.
  const v1::RunSpec key = CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_VM));
  EXPECT_EQ(key.SerializeAsString(),
            CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_NATIVE))
                .SerializeAsString());
  EXPECT_EQ(key.SerializeAsString(),
            CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_CONTAINER))
                .SerializeAsString());
}

TEST(CompareSidesTest, ContainerAgainstVmAndTheDefault) {
  absl::StatusOr<CompareDimension> d =
      ParseCompareDimension("runtime", {}, {"container", "vm"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_CONTAINER), "h"), Side::kBaseline);
  EXPECT_EQ(SideOf(*d, RunOf(v1::RUNTIME_NATIVE), "h"), std::nullopt);
  absl::StatusOr<CompareDimension> plain = ParseCompareDimension("runtime", {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(OtherLabel(*plain), "container");
  EXPECT_EQ(SideOf(*plain, RunOf(v1::RUNTIME_VM), "h"), std::nullopt);
}

TEST(CompareSidesTest, BadSidesNameTheFlag) {
  for (const std::vector<std::string>& sides :
       std::vector<std::vector<std::string>>{
           {"vm"}, {"vm", "vm"}, {"native", "docker"}, {"a", "b", "c"}}) {
    absl::StatusOr<CompareDimension> d =
        ParseCompareDimension("runtime", {}, sides);
    ASSERT_FALSE(d.ok());
    EXPECT_THAT(d.status().message(), HasSubstr("--sides"));
    EXPECT_THAT(d.status().message(), HasSubstr("native, container, vm"));
  }
  absl::StatusOr<CompareDimension> other =
      ParseCompareDimension("page_cache", {}, {"native", "vm"});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("only --by runtime"));
}

}  // namespace
}  // namespace powersweep
