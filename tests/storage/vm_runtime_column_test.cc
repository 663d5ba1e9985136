// Migrations 18 and 19: runs of the vm and container_in_vm runtimes are
// stored (runs.runtime 'vm', 'container_in_vm'), read back with their
// VmSpec, and an unknown runtime is still refused by the column's CHECK.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(VmRuntimeColumnTest, AVmRunIsStoredAndReadBackWithItsSize) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  std::vector<v1::RunSpec> runs = MakeRuns(3);
  runs[1].set_runtime(v1::RUNTIME_VM);
  runs[1].mutable_vm()->set_vcpus(2);
  runs[1].mutable_vm()->set_memory_mib(3072);
  runs[2].set_runtime(v1::RUNTIME_CONTAINER_IN_VM);
  runs[2].set_container_image("powersweep-workload:local");
  runs[2].mutable_vm()->set_vcpus(1);
  runs[2].mutable_vm()->set_memory_mib(2048);
  auto sweep = store->CreateSweep(MakeSpec("s"), runs, kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  auto listed = store->ListRuns(*sweep);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[1].spec().runtime(), v1::RUNTIME_VM);
  EXPECT_EQ((*listed)[1].spec().vm().memory_mib(), 3072);
  EXPECT_EQ((*listed)[2].spec().runtime(), v1::RUNTIME_CONTAINER_IN_VM);
  EXPECT_EQ((*listed)[2].spec().vm().memory_mib(), 2048);
  EXPECT_EQ((*listed)[2].spec().container_image(),
            "powersweep-workload:local");
  RawConnection raw(path, /*read_only=*/false);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs WHERE runtime = 'vm'"), 1);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs WHERE runtime = "
                    "'container_in_vm'"),
            1);
  EXPECT_FALSE(raw.Exec("UPDATE runs SET runtime = 'unikernel'").ok());
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace powersweep
