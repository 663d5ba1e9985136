// Helpers for storage tests: a temporary folder, sweep/run builders and a
// second, independent SQLite connection to look at the file the way another
// process (sqlite3, pandas) would. Not thread-safe; one per test.
#ifndef POWERSWEEP_TESTS_STORAGE_STORE_TEST_UTIL_H_
#define POWERSWEEP_TESTS_STORAGE_STORE_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"
#include "storage/sqlite_db.h"
#include "storage/sqlite_store.h"

namespace powersweep {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "/storage_test_XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A second connection to the same file (read-only unless asked).
class RawConnection {
 public:
  explicit RawConnection(const std::string& path, bool read_only = true) {
    auto db = SqliteDb::Open(path, read_only);
    EXPECT_TRUE(db.ok()) << db.status();
    if (db.ok()) db_ = std::move(*db);
  }
  int64_t Int(const std::string& sql) {
    auto stmt = db_->Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status();
    if (!stmt.ok()) return -1;
    auto row = stmt->Step();
    EXPECT_TRUE(row.ok() && *row) << sql;
    return row.ok() && *row ? stmt->Int(0) : -1;
  }
  std::string Text(const std::string& sql) {
    auto stmt = db_->Prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status();
    if (!stmt.ok()) return "";
    auto row = stmt->Step();
    EXPECT_TRUE(row.ok() && *row) << sql;
    return row.ok() && *row ? stmt->Text(0) : "";
  }
  absl::Status Exec(const std::string& sql) { return db_->Exec(sql); }

 private:
  std::unique_ptr<SqliteDb> db_;
};

inline v1::SweepSpec MakeSpec(const std::string& name) {
  v1::SweepSpec spec;
  spec.set_name(name);
  spec.add_device_classes("host");
  spec.add_models("lenet5");
  spec.add_datasets("fashion-mnist");
  spec.add_tasks(v1::TASK_TRAIN);
  spec.set_minibatches(100);
  return spec;
}

// `n` runs with batch sizes 8, 16, 24, ... (so each is recognizable).
inline std::vector<v1::RunSpec> MakeRuns(int n) {
  std::vector<v1::RunSpec> runs;
  for (int i = 0; i < n; ++i) {
    v1::RunSpec run;
    run.set_device_class("host");
    run.mutable_workload()->set_model("lenet5");
    run.mutable_workload()->set_dataset("fashion-mnist");
    run.mutable_workload()->set_task(v1::TASK_TRAIN);
    run.mutable_workload()->set_batch_size(8 * (i + 1));
    run.mutable_workload()->set_minibatches(100);
    run.mutable_power_mode()->set_preset("MAXN");
    run.mutable_power_mode()->set_cpu_cores(4);
    run.set_runtime(v1::RUNTIME_NATIVE);
    run.set_repetition(i % 2);
    run.set_telemetry_hz(10);
    run.set_timeout_s(600);
    runs.push_back(run);
  }
  return runs;
}

inline v1::MinibatchRecord MakeMinibatch(int64_t index) {
  v1::MinibatchRecord r;
  r.set_epoch(0);
  r.set_index(index);
  r.set_t_start_s(0.5 * index);
  r.set_stall_s(0.125);
  r.set_compute_s(0.25);
  r.set_e2e_s(0.5);
  r.set_samples(32);
  r.set_loss(2.5 - 0.01 * index);
  return r;
}

inline v1::DataBatch MakeBatch(int64_t run_id, int64_t seq, int minibatches,
                               int telemetry) {
  v1::DataBatch batch;
  batch.set_run_id(run_id);
  batch.set_seq(seq);
  for (int i = 0; i < minibatches; ++i) {
    *batch.add_minibatches() = MakeMinibatch((seq - 1) * minibatches + i);
  }
  for (int i = 0; i < telemetry; ++i) {
    v1::TelemetrySample* s = batch.add_telemetry();
    s->set_t_s(0.1 * ((seq - 1) * telemetry + i));
    s->set_cpu_util(0.5);
    s->set_power_mw(4000);
    s->set_power_provenance(v1::PROVENANCE_MODELED);
  }
  return batch;
}

// Opens a store on `dir`/store.db, failing the test on error.
inline std::unique_ptr<SqliteStore> OpenStore(const std::string& path) {
  auto store = SqliteStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_STORAGE_STORE_TEST_UTIL_H_
