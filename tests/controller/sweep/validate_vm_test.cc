// Sweeps with the vm runtime: a device must offer it, the VM must fit the
// devices' memory, the `vm` key needs the runtime and sane sizes; vm runs
// carry their VmSpec and share the native baseload.
#include <string>
#include <vector>

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
                  "vm: only runs of the vm runtime have a virtual machine "
                  "(add vm to runtimes)"));
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

}  // namespace
}  // namespace powersweep
