// MemoryStore against SqliteStore: the same calls give the same answers,
// down to the bytes of every reader's messages and of the CSV export
// (numbers as SQLite renders them). The conformance suite states the
// contract; this catches a difference it does not name.
#include "storage/memory_store.h"

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

// Awkward numbers for the export's REAL cells.
const double kAwkward[] = {1.0 / 3.0, 1e-5,     1e20,        123456.789, -0.5,
                           2.5e-300,  1e15,     1e16,        0.1 + 0.2,  7.0,
                           -1234.5,   0.000123, 99999999.25, 1.5e300,    -0.0};

// Drives a store through a varied history: devices, two sweeps, runs in
// every state, retries, records out of order, results, applied modes,
// models. Returns the sweep ids.
std::vector<int64_t> Populate(Store* store) {
  FakeClock clock;
  std::vector<int64_t> sweeps;
  auto ok = [](const absl::Status& st) { EXPECT_TRUE(st.ok()) << st; };

  v1::DeviceIdentity identity;
  identity.set_device_id("orin-0");
  identity.set_device_class("host");
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(8);
  caps.add_runtimes(v1::RUNTIME_NATIVE);
  ok(store->UpsertDevice(identity, caps, clock.Now()));
  identity.set_device_id("host-0");
  ok(store->UpsertDevice(identity, caps, clock.Now()));
  // Device state (schema 11): drained, forgotten, a health check.
  ok(store->SetDeviceDrained("orin-0", true));
  ok(store->SetDeviceForgotten("host-0", true));
  v1::DeviceHealth health;
  health.set_reason("board temperature 96.5 C");
  health.set_checked_unix_ms(1234);
  ok(store->SaveDeviceHealth("orin-0", health));
  EXPECT_FALSE(store->SetDeviceDrained("nx-0", true).ok());

  std::vector<v1::RunSpec> specs = MakeRuns(7);
  specs[1].mutable_workload()->set_task(v1::TASK_BASELOAD);
  specs[2].mutable_workload()->set_prefetch_depth(3);
  specs[2].mutable_workload()->set_page_cache(v1::PAGE_CACHE_DROP);
  specs[3].set_runtime(v1::RUNTIME_CONTAINER);
  specs[3].set_container_image("powersweep-workload:local");
  specs[4].set_tenants(2);
  auto sweep = store->CreateSweep(MakeSpec("first"), specs, clock.Now());
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  sweeps.push_back(*sweep);
  auto other = store->CreateSweep(MakeSpec("second, with a comma"), MakeRuns(2),
                                  clock.Now());
  EXPECT_TRUE(other.ok()) << other.status();
  sweeps.push_back(*other);
  v1::RunSpec malformed;
  malformed.set_repetition(-1);
  EXPECT_FALSE(
      store->CreateSweep(MakeSpec("refused"), {malformed}, clock.Now()).ok());

  std::vector<int64_t> ids;
  const std::vector<v1::RunStatus> runs =
      store->ListRuns(*sweep).value_or(std::vector<v1::RunStatus>());
  for (const v1::RunStatus& r : runs) ids.push_back(r.spec().run_id());
  auto to = [&](int64_t id, v1::RunState state, const std::string& device = "",
                const std::string& reason = "") {
    clock.Advance(absl::Milliseconds(1234));
    ok(store->TransitionRun(id, state, device, reason, clock.Now()));
  };
  auto ingest = [&](int64_t id, int64_t seq, int mb, int tel, int32_t attempt,
                    int salt) {
    v1::DataBatch batch = MakeBatch(id, seq, mb, tel);
    batch.set_attempt(attempt);
    for (int i = 0; i < batch.minibatches_size(); ++i) {
      v1::MinibatchRecord* r = batch.mutable_minibatches(i);
      r->set_e2e_s(kAwkward[(i + salt) % 15] * 1e-3 + 0.5);
      r->set_loss(kAwkward[(i + salt + 3) % 15]);
      r->set_tenant(i % 2);
      if (i == 0) r->set_page_cache_resident(kAwkward[salt % 15]);
    }
    for (int i = 0; i < batch.telemetry_size(); ++i) {
      v1::TelemetrySample* s = batch.mutable_telemetry(i);
      s->set_t_s(10.0 - 0.37 * (i + seq));  // out of time order
      s->set_cpu_util(kAwkward[(i + salt + 5) % 15]);
      s->set_power_mw(i % 3 == 0 ? 0 : 4000 + kAwkward[(i + salt) % 15]);
      s->add_cores()->set_util(kAwkward[(i + 1) % 15]);
      s->mutable_cores(0)->set_freq_khz(1'200'000 + i);
      if (i % 2 == 0) {
        s->set_mem_freq_hz(1'600'000'000);
        s->mutable_counters()->set_pgfault(1000 + i);
        v1::RailSample* rail = s->add_rails();
        rail->set_name("VDD_IN");
        rail->set_power_mw(kAwkward[i % 15]);
      }
    }
    auto outcome = store->IngestBatch(batch);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
  };

  // 0: done after two batches out of order and a duplicate.
  to(ids[0], kLeased, "orin-0");
  v1::AppliedPowerMode mode;
  mode.mutable_actual()->set_cpu_cores(4);
  mode.add_notes("clamped, \"max\" 4");
  ok(store->SaveAppliedMode(ids[0], mode));
  to(ids[0], kRunning);
  ingest(ids[0], 2, 5, 4, 0, 1);
  ingest(ids[0], 1, 5, 4, 1, 2);
  ingest(ids[0], 2, 5, 4, 0, 1);
  v1::RunResult result = MakeResult(ids[0], kAwkward[0] * 100);
  result.set_energy_stall_j(kAwkward[1]);
  result.set_incremental_energy_j(kAwkward[4]);
  result.set_baseload_power_mw(kAwkward[3]);
  result.set_baseload_run_id(ids[1]);
  result.mutable_provenance()->mutable_workload()->set_params(61100840);
  result.mutable_provenance()->mutable_workload()->set_dataset_format("idx");
  EXPECT_FALSE(
      store->TransitionRun(ids[0], kPending, "", "", clock.Now()).ok());
  clock.Advance(absl::Seconds(3));
  ok(store->FinishRun(result, kDone, "", clock.Now()));
  // 1: a done baseload run.
  to(ids[1], kLeased, "orin-0");
  to(ids[1], kRunning);
  ingest(ids[1], 1, 0, 9, 0, 3);
  v1::RunResult baseload;
  baseload.set_run_id(ids[1]);
  baseload.set_ok(true);
  baseload.set_baseload_power_mw(kAwkward[6]);
  baseload.set_duration_s(30);
  ok(store->FinishRun(baseload, kDone, "", clock.Now()));
  // 2: failed, retried, running attempt 2 with data of both attempts.
  to(ids[2], kLeased, "host-0");
  to(ids[2], kRunning);
  ingest(ids[2], 1, 4, 3, 0, 4);
  v1::RunResult failed;
  failed.set_run_id(ids[2]);
  failed.set_reason("=workload exited, code 1");
  failed.set_exit_code(1);
  ok(store->FinishRun(failed, kFailed, failed.reason(), clock.Now()));
  to(ids[2], kPending, "", "retry");
  to(ids[2], kLeased, "orin-0");
  to(ids[2], kRunning, "orin-0");
  ingest(ids[2], 1, 3, 2, 2, 5);
  // 3: leased, then returned; 4: cancelled while running; 5: leased;
  // 6: pending.
  to(ids[3], kLeased, "host-0");
  ok(store->SaveAppliedMode(ids[3], mode));
  to(ids[3], kPending, "", "agent busy");
  to(ids[4], kLeased, "host-0");
  to(ids[4], kRunning);
  ingest(ids[4], 1, 6, 2, 0, 6);
  to(ids[4], kCancelled, "", "cancelled by the user");
  to(ids[5], kLeased, "orin-0");

  v1::WorkloadModel model;
  model.set_sweep_id(*sweep);
  model.set_device_class("host");
  model.set_model("lenet5");
  model.mutable_time_model()->add_coefficients(kAwkward[0]);
  EXPECT_TRUE(store->SaveModel(model).ok());
  model.set_batch_size(64);
  EXPECT_TRUE(store->SaveModel(model).ok());
  return sweeps;
}

template <typename T>
std::string Bytes(const absl::StatusOr<std::vector<T>>& messages) {
  EXPECT_TRUE(messages.ok()) << messages.status();
  std::string out;
  if (!messages.ok()) return out;
  for (const T& m : *messages)
    absl::StrAppend(&out, m.SerializeAsString(), "|");
  return out;
}

std::string HistoryText(
    const absl::StatusOr<std::vector<RunStateChange>>& history) {
  EXPECT_TRUE(history.ok()) << history.status();
  std::string out;
  if (!history.ok()) return out;
  for (const RunStateChange& c : *history) {
    absl::StrAppend(&out, c.run_id, " ", c.from, ">", c.to, " ", c.device_id,
                    " ", c.reason, " ", absl::FormatTime(c.at), "\n");
  }
  return out;
}

std::string AggregatesText(
    const absl::StatusOr<std::vector<RunAggregates>>& aggs) {
  EXPECT_TRUE(aggs.ok()) << aggs.status();
  std::string out;
  if (!aggs.ok()) return out;
  for (const RunAggregates& a : *aggs) {
    absl::StrAppend(&out, a.run_id, "/", a.attempt, " ",
                    a.aggregates.summary.SerializeAsString(), " ",
                    absl::StrCat(a.aggregates.power_span_s), "\n");
  }
  return out;
}

std::string BaseloadsText(
    const absl::StatusOr<std::vector<RunWithResult>>& found) {
  EXPECT_TRUE(found.ok()) << found.status();
  std::string out;
  if (!found.ok()) return out;
  for (const RunWithResult& r : *found) {
    absl::StrAppend(&out, r.run.SerializeAsString(), "/",
                    r.result.SerializeAsString(), "|");
  }
  return out;
}

std::string Csv(Store* store, int64_t sweep, const std::string& table) {
  std::string out;
  absl::Status st =
      store->ExportCsv(sweep, table, [&](const std::string& chunk) {
        absl::StrAppend(&out, chunk, "<chunk>\n");
      });
  EXPECT_TRUE(st.ok()) << st;
  return out;
}

TEST(MemoryStoreTest, AnswersAsSqliteStoreDoes) {
  SqliteStoreFactory sqlite_factory;
  std::unique_ptr<Store> sqlite = sqlite_factory.Make();
  ASSERT_NE(sqlite, nullptr);
  MemoryStore memory;
  const std::vector<int64_t> sweeps = Populate(sqlite.get());
  ASSERT_EQ(Populate(&memory), sweeps);

  EXPECT_EQ(Bytes(memory.ListDevices()), Bytes(sqlite->ListDevices()));
  EXPECT_EQ(Bytes(memory.ListSweeps()), Bytes(sqlite->ListSweeps()));
  EXPECT_EQ(Bytes(memory.ListPendingRuns(100)),
            Bytes(sqlite->ListPendingRuns(100)));
  EXPECT_EQ(Bytes(memory.ListActiveRuns("")),
            Bytes(sqlite->ListActiveRuns("")));
  EXPECT_EQ(Bytes(memory.ListModels()), Bytes(sqlite->ListModels()));
  EXPECT_EQ(BaseloadsText(memory.FindBaseloads("", nullptr)),
            BaseloadsText(sqlite->FindBaseloads("", nullptr)));
  PendingFilter filter;
  filter.device_class = "host";
  filter.runtimes = {v1::RUNTIME_NATIVE, v1::RUNTIME_CONTAINER};
  filter.models = {"lenet5"};
  filter.datasets = {"fashion-mnist"};
  filter.max_cpu_cores = 4;
  EXPECT_EQ(Bytes(memory.ListPendingRunsFor(filter, 100)),
            Bytes(sqlite->ListPendingRunsFor(filter, 100)));
  for (int64_t sweep : sweeps) {
    SCOPED_TRACE(absl::StrCat("sweep ", sweep));
    EXPECT_TRUE(memory.GetSweepSpec(sweep)->SerializeAsString() ==
                sqlite->GetSweepSpec(sweep)->SerializeAsString());
    EXPECT_EQ(Bytes(memory.ListRuns(sweep)), Bytes(sqlite->ListRuns(sweep)));
    EXPECT_EQ(Bytes(memory.ListRunResults(sweep)),
              Bytes(sqlite->ListRunResults(sweep)));
    EXPECT_EQ(AggregatesText(memory.GetSweepAggregates(sweep)),
              AggregatesText(sqlite->GetSweepAggregates(sweep)));
    for (const char* table : {"runs", "minibatches", "telemetry"}) {
      EXPECT_EQ(Csv(&memory, sweep, table), Csv(sqlite.get(), sweep, table))
          << table;
    }
    const std::vector<v1::RunStatus> runs =
        sqlite->ListRuns(sweep).value_or(std::vector<v1::RunStatus>());
    for (const v1::RunStatus& run : runs) {
      const int64_t id = run.spec().run_id();
      SCOPED_TRACE(absl::StrCat("run ", id));
      EXPECT_EQ(HistoryText(memory.GetRunHistory(id)),
                HistoryText(sqlite->GetRunHistory(id)));
      EXPECT_EQ(Bytes(memory.GetMinibatches(id)),
                Bytes(sqlite->GetMinibatches(id)));
      EXPECT_EQ(Bytes(memory.GetTelemetry(id)),
                Bytes(sqlite->GetTelemetry(id)));
      EXPECT_EQ(memory.ListBatchSeqs(id).value_or(std::vector<int64_t>{-1}),
                sqlite->ListBatchSeqs(id).value_or(std::vector<int64_t>{-2}));
      auto mine = memory.GetRunResult(id);
      auto theirs = sqlite->GetRunResult(id);
      EXPECT_EQ(mine.status().code(), theirs.status().code());
      if (mine.ok() && theirs.ok()) {
        EXPECT_EQ(mine->SerializeAsString(), theirs->SerializeAsString());
      }
    }
  }
}

// Tests count or fail calls by deriving from MemoryStore.
class CountingStore : public MemoryStore {
 public:
  absl::StatusOr<int64_t> CreateSweep(const v1::SweepSpec& spec,
                                      const std::vector<v1::RunSpec>& runs,
                                      absl::Time now) override {
    ++calls;
    return MemoryStore::CreateSweep(spec, runs, now);
  }
  int calls = 0;
};

TEST(MemoryStoreTest, TestsCanDeriveFromIt) {
  CountingStore store;
  Store* as_store = &store;
  ASSERT_TRUE(
      as_store->CreateSweep(MakeSpec("s"), MakeRuns(1), absl::Now()).ok());
  EXPECT_EQ(store.calls, 1);
  EXPECT_EQ(store.ListRuns(1)->size(), 1u);
}

}  // namespace
}  // namespace powersweep
