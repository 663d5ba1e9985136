// Migration 2: the run result's energy split, baseload and agent CPU cost
// columns, and the baseload task; stored by FinishRun and exported.
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/migrations.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

// Creates a sweep with the given runs and moves the first to RUNNING.
int64_t RunningRun(SqliteStore* store, std::vector<v1::RunSpec> runs,
                   int64_t* sweep_id) {
  auto sweep = store->CreateSweep(MakeSpec("s"), runs, kNow);
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  *sweep_id = *sweep;
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();
  EXPECT_TRUE(store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", kNow).ok());
  EXPECT_TRUE(store->TransitionRun(id, v1::RUN_STATE_RUNNING, "", "", kNow).ok());
  return id;
}

std::string Column(const std::string& csv, const std::string& name) {
  std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  std::vector<std::string> header = absl::StrSplit(lines.at(0), ',');
  std::vector<std::string> row = absl::StrSplit(lines.at(1), ',');
  for (size_t i = 0; i < header.size() && i < row.size(); ++i) {
    if (header[i] == name) return row[i];
  }
  return "<no column " + name + ">";
}

TEST(EnergyColumnsTest, BaseloadRunIsStoredWithItsTaskAndPower) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  ASSERT_GE(Migrations().size(), 2u);
  v1::RunSpec baseload;
  baseload.set_device_class("host");
  baseload.mutable_workload()->set_task(v1::TASK_BASELOAD);
  baseload.mutable_workload()->set_duration_s(30);
  baseload.set_runtime(v1::RUNTIME_NATIVE);
  int64_t sweep = 0;
  const int64_t id = RunningRun(store.get(), {baseload}, &sweep);
  auto run = store->GetRun(id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->spec().workload().task(), v1::TASK_BASELOAD);

  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_duration_s(30);
  r.set_energy_j(90);
  r.set_baseload_power_mw(3000);
  r.set_agent_cpu_fraction(0.004);
  ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", kNow).ok());
  auto back = store->GetRunResult(id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->baseload_power_mw(), 3000);

  std::string csv;
  ASSERT_TRUE(store->ExportCsv(sweep, "runs", [&](const std::string& c) { csv += c; }).ok());
  EXPECT_EQ(Column(csv, "task"), "baseload");
  EXPECT_EQ(Column(csv, "baseload_power_mw"), "3000.0");
  EXPECT_EQ(Column(csv, "incremental_energy_j"), "0.0");
  EXPECT_EQ(Column(csv, "agent_cpu_fraction"), "0.004");
  // Other task values are still refused by the table.
  RawConnection raw(path, /*read_only=*/false);
  EXPECT_FALSE(raw.Exec("UPDATE runs SET task = 'bogus'").ok());
}

TEST(EnergyColumnsTest, WorkloadRunStoresPhaseSplitAndUnknownIncrementalAsEmpty) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  int64_t sweep = 0;
  const int64_t id = RunningRun(store.get(), MakeRuns(1), &sweep);
  v1::RunResult r;
  r.set_run_id(id);
  r.set_ok(true);
  r.set_energy_j(12.5);
  r.set_energy_stall_j(2.5);
  r.set_energy_compute_j(9.75);
  r.set_agent_cpu_fraction(0.25);
  ASSERT_TRUE(store->FinishRun(r, v1::RUN_STATE_DONE, "", kNow).ok());
  std::string csv;
  ASSERT_TRUE(store->ExportCsv(sweep, "runs", [&](const std::string& c) { csv += c; }).ok());
  EXPECT_EQ(Column(csv, "energy_stall_j"), "2.5");
  EXPECT_EQ(Column(csv, "energy_compute_j"), "9.75");
  EXPECT_EQ(Column(csv, "agent_cpu_fraction"), "0.25");
  EXPECT_EQ(Column(csv, "incremental_energy_j"), "");  // NULL: not known
}

TEST(EnergyColumnsTest, VersionOneFileIsMigratedKeepingItsRows) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  {
    auto db = SqliteDb::Open(path, /*read_only=*/false);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE schema_migrations (version INTEGER "
                            "PRIMARY KEY NOT NULL, applied_unix_ms INTEGER NOT NULL)")
                    .ok());
    ASSERT_TRUE((*db)->Exec(Migrations()[0]).ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO schema_migrations VALUES (1, 1)").ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO sweeps(name, created_unix_ms, spec_json)"
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
