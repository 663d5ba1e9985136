// Schema 7 on a file written by schema 6: telemetry rows with their extras
// as JSON in rails_json stay readable (GetTelemetry, CSV), and finished runs
// get their record aggregates when the file is opened.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/proto_json.h"
#include "storage/migrations.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

constexpr char kOldExtras[] =
    R"({"rails":[{"name":"VDD_IN","power_mw":5200,"provenance":"PROVENANCE_MEASURED"}],)"
    R"("temperatures":[{"name":"CPU-therm","celsius":41.5}],"mem_freq_hz":"2133000000",)"
    R"("counters":{"pgfault":"1000","nr_written":"345"}})";

// A file as schema 6 left it: one done run with 3 minibatches and 2 samples.
void WriteVersion6File(const std::string& path) {
  RawConnection raw(path, /*read_only=*/false);
  ASSERT_TRUE(raw.Exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY"
                       " NOT NULL, applied_unix_ms INTEGER NOT NULL)")
                  .ok());
  for (int v = 1; v <= 6; ++v) {
    ASSERT_TRUE(raw.Exec(Migrations()[v - 1]).ok()) << v;
    ASSERT_TRUE(raw.Exec(absl::StrCat("INSERT INTO schema_migrations VALUES (", v, ", 0)"))
                    .ok());
  }
  ASSERT_TRUE(raw.Exec(R"sql(
INSERT INTO sweeps(name, created_unix_ms, spec_json) VALUES ('old', 0, '{"name":"old"}');
INSERT INTO runs(sweep_id, device_class, model, dataset, task, batch_size,
  loader_workers, cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz, preset, runtime,
  repetition, attempt, state, device_id, created_unix_ms, finished_unix_ms, spec_json)
  VALUES (1, 'host', 'lenet5', 'fashion-mnist', 'train', 8, 0, 4, 0, 0, 0, 'MAXN',
  'native', 0, 1, 'done', 'host-0', 0, 1000,
  '{"workload":{"model":"lenet5","task":"TASK_TRAIN","batch_size":8}}');
INSERT INTO minibatches(run_id, attempt, seq, idx, epoch, t_start_s, stall_s,
  compute_s, e2e_s, samples, loss) VALUES
  (1, 1, 1, 0, 0, 0.0, 0.1, 0.2, 0.5, 8, 2.5),
  (1, 1, 1, 1, 0, 0.5, 0.1, 0.2, 0.25, 8, 2.0),
  (1, 1, 1, 2, 0, 1.0, 0.1, 0.2, 0.25, 8, 1.5);
)sql")
                  .ok());
  ASSERT_TRUE(raw.Exec(absl::StrCat(
                           "INSERT INTO telemetry(run_id, attempt, seq, t_s, cpu_util,"
                           " core_util, core_freq_khz, mem_used_bytes, mem_total_bytes,"
                           " proc_cpu_s, proc_rss_bytes, gpu_util, gpu_freq_hz, power_mw,"
                           " power_provenance, rails_json, mem_freq_hz, pgfault, nr_written)"
                           " VALUES (1, 1, 1, 0.0, 0.5, '0.5,0.25', '1200,1300', 10, 20,"
                           " 0.1, 30, 0, 0, 5000, 'measured', '",
                           kOldExtras,
                           "', 2133000000, 1000, 345),"
                           " (1, 1, 1, 1.0, 0.25, '', '', 10, 20, 0.2, 40, 0, 0, 6000,"
                           " 'measured', NULL, NULL, NULL, NULL)"))
                  .ok());
}

TEST(Schema7UpgradeTest, OldTelemetryRowsReadTheSameAndRunsGetAggregates) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  WriteVersion6File(path);
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);

  auto tel = store->GetTelemetry(1);
  ASSERT_TRUE(tel.ok()) << tel.status();
  ASSERT_EQ(tel->size(), 2u);
  const v1::TelemetrySample& s = (*tel)[0];
  ASSERT_EQ(s.rails_size(), 1);
  EXPECT_EQ(s.rails(0).name(), "VDD_IN");
  EXPECT_EQ(s.rails(0).power_mw(), 5200);
  EXPECT_EQ(s.temperatures(0).celsius(), 41.5);
  EXPECT_EQ(s.mem_freq_hz(), 2133000000);
  EXPECT_EQ(s.counters().pgfault(), 1000);
  EXPECT_EQ(s.counters().nr_written(), 345);
  ASSERT_EQ(s.cores_size(), 2);
  EXPECT_EQ(s.cores(1).freq_khz(), 1300);
  EXPECT_FALSE((*tel)[1].has_counters());

  std::string csv;
  ASSERT_TRUE(store->ExportCsv(1, "telemetry", [&](const std::string& c) { csv += c; }).ok());
  EXPECT_THAT(csv, HasSubstr("rails_json"));
  EXPECT_THAT(csv, HasSubstr("VDD_IN"));
  EXPECT_THAT(csv, HasSubstr("pgfault"));

  RawConnection raw(path);
  EXPECT_EQ(raw.Int("SELECT MAX(version) FROM schema_migrations"),
            static_cast<int64_t>(Migrations().size()));
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_aggregates WHERE run_id = 1"), 1);
  auto aggs = store->GetSweepAggregates(1);
  ASSERT_TRUE(aggs.ok()) << aggs.status();
  ASSERT_EQ(aggs->size(), 1u);
  const v1::RunSummary& sum = (*aggs)[0].aggregates.summary;
  EXPECT_EQ(sum.minibatches(), 3);
  EXPECT_DOUBLE_EQ(sum.mean_minibatch_s(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(sum.samples_per_s(), 24.0);
  EXPECT_DOUBLE_EQ(sum.first_loss(), 2.0);
  EXPECT_EQ(sum.telemetry_samples(), 2);
  EXPECT_EQ(sum.peak_rss_bytes(), 40);
  EXPECT_DOUBLE_EQ(sum.energy_j(), 5.5);  // (5 W + 6 W) / 2 over 1 s
  EXPECT_EQ(sum.energy_provenance(), v1::PROVENANCE_MEASURED);
  EXPECT_DOUBLE_EQ((*aggs)[0].aggregates.power_span_s, 1.0);
}

// Schemas 13 and 14 on the same old file: its rails and temperatures are
// readable with plain SQL, and a twin's inference run that stored 0 as its
// loss has no loss (NULL) in its minibatches and aggregates.
TEST(Schema7UpgradeTest, OldRowsGetSqlRailsAndTwinInferenceLosesItsZeroLoss) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  WriteVersion6File(path);
  {
    RawConnection raw(path, /*read_only=*/false);
    ASSERT_TRUE(raw.Exec(R"sql(
INSERT INTO runs(sweep_id, device_class, model, dataset, task, batch_size,
  loader_workers, cpu_cores, cpu_freq_khz, gpu_freq_hz, mem_freq_hz, preset, runtime,
  repetition, attempt, state, device_id, created_unix_ms, finished_unix_ms, spec_json)
  VALUES (1, 'orin-agx', 'lenet5', 'fashion-mnist', 'infer', 8, 0, 4, 0, 0, 0, 'MAXN',
  'native', 0, 1, 'done', 'orin-agx-twin-0', 0, 1000,
  '{"workload":{"model":"lenet5","task":"TASK_INFER","batch_size":8}}');
INSERT INTO minibatches(run_id, attempt, seq, idx, epoch, t_start_s, stall_s,
  compute_s, e2e_s, samples, loss) VALUES
  (2, 1, 1, 0, 0, 0.0, 0.1, 0.2, 0.5, 8, 0),
  (2, 1, 1, 1, 0, 0.5, 0.1, 0.2, 0.5, 8, 0);
INSERT INTO run_results(run_id, attempt, ok, exit_code, term_signal, duration_s,
  energy_j, energy_provenance, sampler_cpu_s, framework, result_json)
  VALUES (2, 1, 1, 0, 0, 1.0, 0, 'unspecified', 0, 'twin-model', '{}');
)sql")
                    .ok());
  }
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  RawConnection raw(path);
  EXPECT_EQ(raw.Text("SELECT rails_mw FROM telemetry WHERE t_s = 0"),
            "{\"VDD_IN\":5200}");
  EXPECT_EQ(raw.Text("SELECT zone || '=' || celsius FROM telemetry_temperatures"),
            "CPU-therm=41.5");
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry WHERE rails_mw IS NULL"), 1);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches WHERE run_id = 2"
                    " AND loss IS NULL"),
            2);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches WHERE run_id = 1"
                    " AND loss IS NOT NULL"),
            3);  // a training run keeps its losses
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_aggregates WHERE run_id = 2"
                    " AND first_loss IS NULL"),
            1);
}

TEST(Schema7UpgradeTest, NewRowsExportTheJsonOldVersionsStored) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  auto sweep = store->CreateSweep(MakeSpec("s"), MakeRuns(1), absl::UnixEpoch());
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();
  v1::DataBatch batch = MakeBatch(id, 1, 0, 1);
  v1::TelemetrySample* s = batch.mutable_telemetry(0);
  v1::RailSample* rail = s->add_rails();
  rail->set_name("VDD_GPU_SOC");
  rail->set_power_mw(812.5);
  rail->set_provenance(v1::PROVENANCE_MEASURED);
  s->mutable_counters()->set_tenant_dirty_bytes(4096);  // no column of its own
  ASSERT_TRUE(store->IngestBatch(batch).ok());

  v1::TelemetrySample extras;  // what rails_json held before schema 7
  *extras.mutable_rails() = s->rails();
  *extras.mutable_counters() = s->counters();
  std::string csv;
  ASSERT_TRUE(
      store->ExportCsv(*sweep, "telemetry", [&](const std::string& c) { csv += c; }).ok());
  std::string quoted = "\"";
  for (char c : ToJsonLine(extras)) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  quoted.push_back('"');
  EXPECT_THAT(csv, HasSubstr(quoted));

  auto tel = store->GetTelemetry(id);
  ASSERT_TRUE(tel.ok()) << tel.status();
  EXPECT_EQ((*tel)[0].rails(0).power_mw(), 812.5);
  EXPECT_EQ((*tel)[0].counters().tenant_dirty_bytes(), 4096);
  RawConnection raw(dir.path() + "/store.db");
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry WHERE rails_json IS NULL"
                    " AND extras_pb IS NOT NULL"),
            1);
}

}  // namespace
}  // namespace powersweep
