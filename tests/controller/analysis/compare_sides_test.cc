// compare --by runtime --sides A,B: any two of native, container, vm and
// container_in_vm, the baseline first; runs of other runtimes are on
// neither side, and a VM's shape is part of its cell, each shape paired
// with the same cell of a runtime without a VM.
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
  if (runtime == v1::RUNTIME_VM || runtime == v1::RUNTIME_CONTAINER_IN_VM) {
    s.mutable_vm()->set_memory_mib(4096);
  }
  if (runtime == v1::RUNTIME_CONTAINER ||
      runtime == v1::RUNTIME_CONTAINER_IN_VM) {
    s.set_container_image("img");
  }
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
  // Native and container runs of one workload are one cell; VM runs keep
  // their shape (PairVmShapes pairs them), the same for both VM runtimes.
  const v1::RunSpec key =
      CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_NATIVE));
  EXPECT_EQ(key.SerializeAsString(),
            CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_CONTAINER))
                .SerializeAsString());
  const v1::RunSpec vm = CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_VM));
  EXPECT_EQ(vm.vm().memory_mib(), 4096);
  EXPECT_EQ(vm.SerializeAsString(),
            CellKey(CompareBy::kRuntime, RunOf(v1::RUNTIME_CONTAINER_IN_VM))
                .SerializeAsString());
  EXPECT_THAT(CellLabel(vm), HasSubstr("| vm 4096 MiB"));
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
    EXPECT_THAT(d.status().message(),
                HasSubstr("native, container, vm, container_in_vm"));
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

RunMetrics Done(int64_t id, v1::Runtime runtime, int vcpus, double mb_s) {
  RunMetrics m;
  m.run_id = id;
  m.spec = RunOf(runtime);
  if (vcpus > 0) m.spec.mutable_vm()->set_vcpus(vcpus);
  m.spec.set_run_id(id);
  m.state = v1::RUN_STATE_DONE;
  m.device_id = "h";
  m.minibatches = 5;
  m.mean_minibatch_s = mb_s;
  m.binary_fingerprint = "build-id:1";
  m.framework_fingerprint = "build-id:2";
  m.vm_accel = runtime == v1::RUNTIME_NATIVE ? "" : "kvm";
  return m;
}

// With the vm_vcpus axis each VM shape is its own cell, each compared with
// the same native runs; container_in_vm against vm pairs equal shapes.
TEST(CompareSidesTest, EachVmShapeIsComparedWithTheSameNativeCell) {
  const std::vector<RunMetrics> runs = {
      Done(1, v1::RUNTIME_NATIVE, 0, 0.020),
      Done(2, v1::RUNTIME_NATIVE, 0, 0.021),
      Done(3, v1::RUNTIME_VM, 1, 0.040),
      Done(4, v1::RUNTIME_VM, 1, 0.041),
      Done(5, v1::RUNTIME_VM, 2, 0.025),
      Done(6, v1::RUNTIME_VM, 2, 0.026),
      Done(7, v1::RUNTIME_CONTAINER_IN_VM, 2, 0.030),
      Done(8, v1::RUNTIME_CONTAINER_IN_VM, 2, 0.031)};
  const Comparison c = CompareRuns(
      runs, ParseCompareDimension("runtime", {}, {"native", "vm"}).value());
  ASSERT_EQ(c.cells.size(), 2u);
  for (const CellComparison& cell : c.cells) {
    EXPECT_EQ(cell.baseline_run_ids, (std::vector<int64_t>{1, 2}))
        << cell.label;
  }
  EXPECT_THAT(c.cells[0].label, HasSubstr("vm 1 vCPU 4096 MiB"));
  EXPECT_EQ(c.cells[0].other_run_ids, (std::vector<int64_t>{3, 4}));
  EXPECT_THAT(c.cells[1].label, HasSubstr("vm 2 vCPU 4096 MiB"));
  EXPECT_EQ(c.cells[1].other_run_ids, (std::vector<int64_t>{5, 6}));

  const Comparison v = CompareRuns(
      runs,
      ParseCompareDimension("runtime", {}, {"vm", "container_in_vm"}).value());
  ASSERT_EQ(v.cells.size(), 2u);  // 1 vCPU: vm only; 2 vCPUs: both sides
  EXPECT_EQ(v.cells[1].baseline_run_ids, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(v.cells[1].other_run_ids, (std::vector<int64_t>{7, 8}));
  EXPECT_TRUE(v.cells[0].other_run_ids.empty());
}

}  // namespace
}  // namespace powersweep
