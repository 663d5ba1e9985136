// Migration 2: the run result's energy split, baseload and agent CPU cost
// columns, and the baseload task in the runs table's CHECK. (How those
// results read back and export is in store_conformance_export_test.cc.)
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/migrations.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(EnergyColumnsTest, TheTaskCheckTakesBaseloadAndNothingUnknown) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  ASSERT_GE(Migrations().size(), 2u);
  v1::RunSpec baseload;
  baseload.set_device_class("host");
  baseload.mutable_workload()->set_task(v1::TASK_BASELOAD);
  baseload.set_runtime(v1::RUNTIME_NATIVE);
  auto sweep = store->CreateSweep(MakeSpec("s"), {baseload}, kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  RawConnection raw(path, /*read_only=*/false);
  EXPECT_EQ(raw.Text("SELECT task FROM runs"), "baseload");
  EXPECT_FALSE(raw.Exec("UPDATE runs SET task = 'bogus'").ok());
}

TEST(EnergyColumnsTest, UnknownIncrementalEnergyIsNull) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  auto sweep = store->CreateSweep(MakeSpec("s"), MakeRuns(1), kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();
  ASSERT_TRUE(
      store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", kNow).ok());
  ASSERT_TRUE(
      store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", kNow).ok());
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_energy_j(12.5);
  r.set_energy_stall_j(2.5);
  r.set_agent_cpu_fraction(0.25);
  ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", kNow).ok());
  RawConnection raw(path);
  EXPECT_EQ(raw.Int("SELECT incremental_energy_j IS NULL FROM run_results"), 1);
  EXPECT_EQ(raw.Int("SELECT baseload_run_id IS NULL FROM run_results"), 1);
  EXPECT_EQ(raw.Text("SELECT energy_stall_j FROM run_results"), "2.5");
}

TEST(EnergyColumnsTest, VersionOneFileIsMigratedKeepingItsRows) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  {
    auto db = SqliteDb::Open(path, /*read_only=*/false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)
            ->Exec("CREATE TABLE schema_migrations (version INTEGER "
                   "PRIMARY KEY NOT NULL, applied_unix_ms INTEGER NOT NULL)")
            .ok());
    ASSERT_TRUE((*db)->Exec(Migrations()[0]).ok());
    ASSERT_TRUE(
        (*db)->Exec("INSERT INTO schema_migrations VALUES (1, 1)").ok());
    ASSERT_TRUE(
        (*db)
            ->Exec("INSERT INTO sweeps(name, created_unix_ms, spec_json)"
                   " VALUES ('old', 1, '{}')")
            .ok());
  }
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  RawConnection raw(path);
  EXPECT_EQ(raw.Int("SELECT MAX(version) FROM schema_migrations"),
            static_cast<int64_t>(Migrations().size()));
  EXPECT_EQ(raw.Text("SELECT name FROM sweeps"), "old");
  EXPECT_EQ(raw.Text("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM pragma_table_info('run_results')"
                    " WHERE name = 'agent_cpu_fraction'"),
            1);
}

}  // namespace
}  // namespace powersweep
