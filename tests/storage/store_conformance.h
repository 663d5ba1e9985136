// The Store conformance suite: the contract of storage/store.h, stated once
// as GoogleTest typed tests and run against every Store implementation:
// SqliteStore on a file in a temporary folder, and MemoryStore
// (storage/memory_store.h), the in-memory Store other tests use in its
// place. Each store_conformance_*_test.cc covers one part of the interface
// with its own typed fixture derived from StoreConformanceTest.
//
// What only SqliteStore promises (the file's tables, WAL readers,
// reopening, migrations, group commit) is tested in sqlite_store_*_test.cc.
#ifndef POWERSWEEP_TESTS_STORAGE_STORE_CONFORMANCE_H_
#define POWERSWEEP_TESTS_STORAGE_STORE_CONFORMANCE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"
#include "storage/memory_store.h"
#include "storage/store.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {

// Makes the store a test runs against; one factory per test.
struct SqliteStoreFactory {
  static constexpr const char* kName = "Sqlite";
  std::unique_ptr<Store> Make() { return OpenStore(dir.path() + "/store.db"); }
  TempDir dir;
};

struct MemoryStoreFactory {
  static constexpr const char* kName = "Memory";
  std::unique_ptr<Store> Make() { return std::make_unique<MemoryStore>(); }
};

using StoreImplementations =
    ::testing::Types<SqliteStoreFactory, MemoryStoreFactory>;

// Names the typed tests StoreXTest/Sqlite.Name and StoreXTest/Memory.Name.
struct StoreImplementationNames {
  template <typename Factory>
  static std::string GetName(int) {
    return Factory::kName;
  }
};

constexpr v1::RunState kPending = v1::RUN_STATE_PENDING;
constexpr v1::RunState kLeased = v1::RUN_STATE_LEASED;
constexpr v1::RunState kRunning = v1::RUN_STATE_RUNNING;
constexpr v1::RunState kDone = v1::RUN_STATE_DONE;
constexpr v1::RunState kFailed = v1::RUN_STATE_FAILED;
constexpr v1::RunState kCancelled = v1::RUN_STATE_CANCELLED;

// The transitions that take a new run (PENDING) to `state`.
inline std::vector<v1::RunState> PathTo(v1::RunState state) {
  switch (state) {
    case kLeased:
      return {kLeased};
    case kRunning:
      return {kLeased, kRunning};
    case kDone:
      return {kLeased, kRunning, kDone};
    case kFailed:
      return {kLeased, kFailed};
    case kCancelled:
      return {kCancelled};
    default:
      return {};
  }
}

// A result of run `id` as an agent reports it.
inline v1::RunResult MakeResult(int64_t id, double energy_j) {
  v1::RunResult result;
  result.set_run_id(id);
  result.set_ok(true);
  result.set_duration_s(12.5);
  result.set_energy_j(energy_j);
  result.set_energy_provenance(v1::PROVENANCE_MODELED);
  result.mutable_provenance()->set_framework("libtorch");
  result.mutable_provenance()->set_framework_version("1.13.0");
  result.mutable_provenance()->set_threads(4);
  result.mutable_applied_mode()->mutable_actual()->set_cpu_cores(4);
  return result;
}

// The lines of a CSV export (the text must end with a newline).
inline std::vector<std::string> CsvLines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  EXPECT_EQ(lines.back(), "") << "the export ends with a newline";
  lines.pop_back();
  return lines;
}

// The fields of one CSV line (RFC 4180: quoted fields, quotes doubled).
inline std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back().push_back(c);
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back().push_back(c);
    }
  }
  return fields;
}

// One row of a CSV export, read by column name.
class CsvRow {
 public:
  CsvRow(const std::string& header, const std::string& row)
      : header_(CsvFields(header)), row_(CsvFields(row)) {
    EXPECT_EQ(header_.size(), row_.size()) << header << "\n" << row;
  }
  std::string operator[](const std::string& name) const {
    for (size_t i = 0; i < header_.size() && i < row_.size(); ++i) {
      if (header_[i] == name) return row_[i];
    }
    return "<no column " + name + ">";
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::string> row_;
};

template <typename Factory>
class StoreConformanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = factory_.Make();
    ASSERT_NE(store_, nullptr);
  }

  // Creates a sweep of `runs` and returns its id.
  int64_t AddSweep(const std::vector<v1::RunSpec>& runs,
                   const std::string& name = "sweep") {
    absl::StatusOr<int64_t> sweep =
        store_->CreateSweep(MakeSpec(name), runs, clock_.Now());
    EXPECT_TRUE(sweep.ok()) << sweep.status();
    return sweep.value_or(0);
  }
  // The run ids of a sweep, in order.
  std::vector<int64_t> RunIds(int64_t sweep_id) {
    std::vector<int64_t> ids;
    absl::StatusOr<std::vector<v1::RunStatus>> runs =
        store_->ListRuns(sweep_id);
    EXPECT_TRUE(runs.ok()) << runs.status();
    if (runs.ok()) {
      for (const v1::RunStatus& run : *runs) ids.push_back(run.spec().run_id());
    }
    return ids;
  }
  // Creates a sweep of `n` runs (MakeRuns) and returns their ids.
  std::vector<int64_t> CreateRuns(int n) {
    return RunIds(AddSweep(MakeRuns(n)));
  }

  // Moves run `id` through `steps` (leasing to `device`), failing on error.
  void Move(int64_t id, const std::vector<v1::RunState>& steps,
            const std::string& device = "host-0") {
    for (v1::RunState step : steps) {
      absl::Status st = store_->TransitionRun(
          id, step, step == kLeased ? device : "", "", clock_.Now());
      ASSERT_TRUE(st.ok()) << "run " << id << " to " << v1::RunState_Name(step)
                           << ": " << st;
    }
  }
  void Start(int64_t id, const std::string& device = "host-0") {
    Move(id, {kLeased, kRunning}, device);
  }

  v1::RunStatus Run(int64_t id) {
    absl::StatusOr<v1::RunStatus> run = store_->GetRun(id);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.value_or(v1::RunStatus());
  }
  size_t HistorySize(int64_t id) {
    auto history = store_->GetRunHistory(id);
    EXPECT_TRUE(history.ok()) << history.status();
    return history.ok() ? history->size() : 0;
  }
  size_t Minibatches(int64_t id) {
    auto records = store_->GetMinibatches(id);
    EXPECT_TRUE(records.ok()) << records.status();
    return records.ok() ? records->size() : 0;
  }
  size_t Telemetry(int64_t id) {
    auto samples = store_->GetTelemetry(id);
    EXPECT_TRUE(samples.ok()) << samples.status();
    return samples.ok() ? samples->size() : 0;
  }
  int64_t Batches(int64_t id) {
    auto count = store_->CountBatches(id);
    EXPECT_TRUE(count.ok()) << count.status();
    return count.value_or(-1);
  }
  std::vector<int64_t> Seqs(int64_t id) {
    auto seqs = store_->ListBatchSeqs(id);
    EXPECT_TRUE(seqs.ok()) << seqs.status();
    return seqs.value_or(std::vector<int64_t>());
  }

  // Exports `table` of a sweep: the status and the chunks.
  absl::Status Export(int64_t sweep_id, const std::string& table,
                      std::vector<std::string>* chunks) {
    return store_->ExportCsv(
        sweep_id, table, [&](const std::string& c) { chunks->push_back(c); });
  }
  // The lines of an export that must succeed.
  std::vector<std::string> ExportLines(int64_t sweep_id,
                                       const std::string& table) {
    std::vector<std::string> chunks;
    absl::Status st = Export(sweep_id, table, &chunks);
    EXPECT_TRUE(st.ok()) << st;
    return CsvLines(absl::StrJoin(chunks, ""));
  }

  Factory factory_;
  FakeClock clock_;
  std::unique_ptr<Store> store_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_STORAGE_STORE_CONFORMANCE_H_
