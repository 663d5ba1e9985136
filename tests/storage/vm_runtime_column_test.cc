// Migration 18: runs of the vm runtime are stored (runs.runtime 'vm'), read
// back as RUNTIME_VM with their VmSpec, and an unknown runtime is still
// refused by the column's CHECK.
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
  std::vector<v1::RunSpec> runs = MakeRuns(2);
  runs[1].set_runtime(v1::RUNTIME_VM);
  runs[1].mutable_vm()->set_vcpus(2);
  runs[1].mutable_vm()->set_memory_mib(3072);
  auto sweep = store->CreateSweep(MakeSpec("s"), runs, kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  auto listed = store->ListRuns(*sweep);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[1].spec().runtime(), v1::RUNTIME_VM);
  EXPECT_EQ((*listed)[1].spec().vm().memory_mib(), 3072);
  RawConnection raw(path, /*read_only=*/false);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM runs WHERE runtime = 'vm'"), 1);
  EXPECT_FALSE(raw.Exec("UPDATE runs SET runtime = 'unikernel'").ok());
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace powersweep
