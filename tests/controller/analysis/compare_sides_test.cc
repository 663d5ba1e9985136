// compare --by runtime --sides A,B: any two of native, container and vm,
// the baseline first; runs of a third runtime are on neither side, and a
// vm run's VM size is not part of its cell.
#include <string>
#include <vector>

#include "controller/analysis/compare.h"
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

// A side whose VMs were emulated says so in its cell: its times are
// emulation's (this project's machines run VMs under TCG only).
TEST(CompareSidesTest, EmulatedVmRunsAreCalledOutInTheirCell) {
  std::vector<RunMetrics> runs;
  for (int i = 0; i < 4; ++i) {
    RunMetrics m;
    m.run_id = i + 1;
    m.spec = RunOf(i < 2 ? v1::RUNTIME_NATIVE : v1::RUNTIME_VM);
    m.spec.set_run_id(i + 1);
    m.state = v1::RUN_STATE_DONE;
    m.device_id = "h";
    m.minibatches = 5;
    m.mean_minibatch_s = i < 2 ? 0.02 + 0.001 * i : 2.0 + 0.1 * i;
    m.binary_fingerprint = "build-id:1";
    m.framework_fingerprint = "build-id:2";
    if (i >= 2) m.vm_accel = i == 2 ? "tcg" : "kvm";
    runs.push_back(m);
  }
  const Comparison c = CompareRuns(
      runs, ParseCompareDimension("runtime", {}, {"native", "vm"}).value());
  ASSERT_EQ(c.cells.size(), 1u);
  EXPECT_THAT(c.cells[0].warnings,
              ::testing::Contains(HasSubstr(
                  "1 of the 2 vm runs ran in an EMULATED VM (QEMU TCG")));
  runs[2].vm_accel = "kvm";
  const Comparison k = CompareRuns(
      runs, ParseCompareDimension("runtime", {}, {"native", "vm"}).value());
  ASSERT_EQ(k.cells.size(), 1u);
  EXPECT_THAT(k.cells[0].warnings,
              ::testing::Not(::testing::Contains(HasSubstr("EMULATED"))));
}

}  // namespace
}  // namespace powersweep
