// Sweeps with the vm and container_in_vm runtimes: a device must offer
// them, the VM must fit the devices' memory, the `vm` key and the
// vm_vcpus / vm_memory_mib axes need such a runtime and sane sizes; vm runs
// carry their VmSpec (one per shape of the axes) and share the native
// baseload.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "controller/sweep/expand.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/sweep/validate_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing_util::Ctx;
using testing_util::Device;
using testing_util::GoodSpec;
using testing_util::Problems;

v1::SweepSpec VmSpecOnHost() {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_VM);
  return WithDefaults(s);
}

ValidationContext WithVmHost(int64_t memory_bytes) {
  ValidationContext ctx = Ctx();
  v1::DeviceStatus d =
      Device("host-1", "host", 4, {v1::RUNTIME_NATIVE, v1::RUNTIME_VM});
  d.mutable_capabilities()->set_memory_bytes(memory_bytes);
  ctx.known_devices.push_back(d);
  return ctx;
}

TEST(ValidateVmTest, TheVmRuntimeNeedsADeviceOfferingIt) {
  const v1::SweepSpec s = VmSpecOnHost();
  EXPECT_EQ(s.vm().memory_mib(), 4096);  // the default
  EXPECT_THAT(Problems(s, Ctx()),
              ElementsAre(HasSubstr("runtimes[1]: no registered device of "
                                    "class host offers the vm runtime")));
  EXPECT_THAT(Problems(s, WithVmHost(int64_t{16} << 30)), IsEmpty());
}

TEST(ValidateVmTest, AVmLargerThanTheHostsMemoryIsRefused) {
  v1::SweepSpec s = VmSpecOnHost();
  s.mutable_vm()->set_memory_mib(65536);
  EXPECT_THAT(Problems(s, WithVmHost(int64_t{16} << 30)),
              ElementsAre("vm.memory_mib: 65536 MiB is more than the memory "
                          "of any host device (16384 MiB)"));
}

TEST(ValidateVmTest, TheVmKeyNeedsTheRuntimeAndSaneSizes) {
  v1::SweepSpec s = GoodSpec();
  s.mutable_vm()->set_vcpus(-1);
  s.mutable_vm()->set_memory_mib(100);
  EXPECT_THAT(
      Problems(s),
      ElementsAre(HasSubstr("vm.vcpus: -1 is out of range"),
                  HasSubstr("vm.memory_mib: 100 is out of range"),
                  "vm: only runs of the vm and container_in_vm runtimes have "
                  "a virtual machine (add one of them to runtimes)"));
}

TEST(ValidateVmTest, VmRunsCarryTheirSizeAndShareTheNativeBaseload) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_VM);
  s.add_tasks(v1::TASK_BASELOAD);
  s.set_duration_s(5);
  s.mutable_vm()->set_vcpus(2);
  s = WithDefaults(s);
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  EXPECT_EQ(static_cast<int64_t>(runs.size()), CountRuns(s));
  int vm = 0, native = 0, baseload = 0;
  for (const v1::RunSpec& r : runs) {
    if (r.workload().task() == v1::TASK_BASELOAD) {
      ++baseload;
      EXPECT_EQ(r.runtime(), v1::RUNTIME_NATIVE);
      continue;
    }
    if (r.runtime() == v1::RUNTIME_VM) {
      ++vm;
      EXPECT_EQ(r.vm().vcpus(), 2);
      EXPECT_EQ(r.vm().memory_mib(), 4096);
    } else {
      ++native;
      EXPECT_FALSE(r.has_vm());
    }
  }
  EXPECT_EQ(vm, 1);
  EXPECT_EQ(native, 1);
  EXPECT_EQ(baseload, 1);  // one idle run serves native and vm
}

TEST(ValidateVmTest, ContainerInVmNeedsADeviceOfferingItAndGetsTheImage) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_CONTAINER_IN_VM);
  s = WithDefaults(s);
  EXPECT_EQ(s.container_image(), "powersweep-workload:local");
  EXPECT_EQ(s.vm().memory_mib(), 4096);
  // A host offering vm but not container_in_vm (no container engine).
  EXPECT_THAT(Problems(s, WithVmHost(int64_t{16} << 30)),
              ElementsAre(HasSubstr(
                  "runtimes[1]: no registered device of class host offers "
                  "the container_in_vm runtime (it needs the vm runtime and "
                  "the agent's --container_images")));
  ValidationContext ctx = Ctx();
  v1::DeviceStatus d = Device(
      "host-1", "host", 4,
      {v1::RUNTIME_NATIVE, v1::RUNTIME_VM, v1::RUNTIME_CONTAINER_IN_VM});
  d.mutable_capabilities()->set_memory_bytes(int64_t{16} << 30);
  ctx.known_devices.push_back(d);
  EXPECT_THAT(Problems(s, ctx), IsEmpty());
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  int in_vm = 0;
  for (const v1::RunSpec& r : runs) {
    if (r.runtime() != v1::RUNTIME_CONTAINER_IN_VM) continue;
    ++in_vm;
    EXPECT_EQ(r.container_image(), "powersweep-workload:local");
    EXPECT_EQ(r.vm().memory_mib(), 4096);
  }
  EXPECT_EQ(in_vm, 1);
}

TEST(ValidateVmTest, TheVmAxesMultiplyOnlyVmCells) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_VM);
  s.add_runtimes(v1::RUNTIME_CONTAINER_IN_VM);
  s.add_vm_vcpus(1);
  s.add_vm_vcpus(2);
  s.add_vm_memory_mib(2048);
  s.add_vm_memory_mib(0);  // the default size
  s = WithDefaults(s);
  EXPECT_EQ(s.vm().memory_mib(), 0);  // the axis holds the sizes
  EXPECT_THAT(s.vm_memory_mib(), ElementsAre(2048, 4096));
  const std::vector<v1::RunSpec> runs = ExpandSweep(s);
  EXPECT_EQ(static_cast<int64_t>(runs.size()), CountRuns(s));
  std::vector<std::string> shapes;
  int native = 0;
  for (const v1::RunSpec& r : runs) {
    if (r.runtime() == v1::RUNTIME_NATIVE) {
      ++native;
      EXPECT_FALSE(r.has_vm());
      continue;
    }
    shapes.push_back(absl::StrCat(RuntimeText(r.runtime()), " ",
                                  r.vm().vcpus(), "x", r.vm().memory_mib()));
  }
  EXPECT_EQ(native, 1);
  EXPECT_THAT(shapes,
              ElementsAre("vm 1x2048", "vm 1x4096", "vm 2x2048", "vm 2x4096",
                          "container_in_vm 1x2048", "container_in_vm 1x4096",
                          "container_in_vm 2x2048", "container_in_vm 2x4096"));
}

TEST(ValidateVmTest, TheVmAxesAreCheckedAndExclusiveWithTheVmKey) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_VM);
  s.add_vm_vcpus(2);
  s.add_vm_vcpus(300);
  s.add_vm_vcpus(2);
  s.add_vm_memory_mib(100);
  s.mutable_vm()->set_vcpus(4);
  EXPECT_THAT(
      Problems(s, WithVmHost(int64_t{16} << 30)),
      ElementsAre("vm_vcpus[1]: 300 is out of range (1..256, or 0 for the "
                  "run's cores)",
                  "vm_memory_mib[0]: 100 is out of range (256..1048576, or 0 "
                  "for 4096)",
                  "vm_vcpus[2]: duplicate of vm_vcpus[0] (2)",
                  "vm_vcpus: the vCPU counts are given both here and in "
                  "vm.vcpus (keep one)"));
  v1::SweepSpec native = GoodSpec();
  native.add_vm_memory_mib(2048);
  EXPECT_THAT(Problems(native),
              ElementsAre(HasSubstr("vm_memory_mib: only runs of the vm and "
                                    "container_in_vm runtimes")));
  // Each size of the axis is checked against the devices' memory.
  v1::SweepSpec big = VmSpecOnHost();
  big.clear_vm();
  big.add_vm_memory_mib(2048);
  big.add_vm_memory_mib(65536);
  EXPECT_THAT(Problems(big, WithVmHost(int64_t{16} << 30)),
              ElementsAre("vm_memory_mib[1]: 65536 MiB is more than the "
                          "memory of any host device (16384 MiB)"));
}

// A sweep over the run limit is refused from its count, which the axes'
// product enters without the runs (or the VM shapes) being made.
TEST(ValidateVmTest, HugeVmAxesAreCountedNotMade) {
  v1::SweepSpec s = GoodSpec();
  s.set_device_classes(0, "host");
  s.add_runtimes(v1::RUNTIME_VM);
  for (int c = 1; c <= 256; ++c) s.add_vm_vcpus(c);
  for (int m = 0; m < 4000; ++m) s.add_vm_memory_mib(256 + m);
  s = WithDefaults(s);
  // 1 native run + 256 x 4000 vm runs.
  EXPECT_EQ(CountRuns(s), 1 + int64_t{256} * 4000);
  EXPECT_THAT(Problems(s, WithVmHost(int64_t{16} << 30)),
              ::testing::Contains(HasSubstr("runs")));
}

}  // namespace
}  // namespace powersweep
