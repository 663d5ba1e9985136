// SqliteStore: what the file shows of ingested batches and results (flat,
// human-readable columns for sqlite3 and pandas users; nothing stored for
// a refused batch). The Store contract of ingest and results is in
// store_conformance_ingest_test.cc and store_conformance_results_test.cc.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class SqliteIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/store.db";
    store_ = OpenStore(path_);
    ASSERT_NE(store_, nullptr);
    auto sweep =
        store_->CreateSweep(MakeSpec("ingest"), MakeRuns(1), clock_.Now());
    ASSERT_TRUE(sweep.ok());
    sweep_id_ = *sweep;
    run_id_ = (*store_->ListRuns(*sweep))[0].spec().run_id();
  }

  TempDir dir_;
  std::string path_;
  FakeClock clock_;
  std::unique_ptr<SqliteStore> store_;
  int64_t sweep_id_ = 0;
  int64_t run_id_ = 0;
};

TEST_F(SqliteIngestTest, TelemetryHasFlatReadableColumns) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 0, 0);
  v1::TelemetrySample* s = batch.add_telemetry();
  s->set_t_s(0.1);
  s->add_cores()->set_util(0.5);
  s->mutable_cores(0)->set_freq_khz(1'200'000);
  s->add_cores()->set_util(0.25);
  s->mutable_cores(1)->set_freq_khz(2'200'000);
  s->set_power_mw(4321.5);
  s->set_power_provenance(v1::PROVENANCE_MEASURED);
  s->mutable_counters()->set_pgfault(1000);
  s->set_mem_freq_hz(2133000000);
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT core_util FROM telemetry"), "0.5,0.25");
  EXPECT_EQ(raw.Text("SELECT core_freq_khz FROM telemetry"), "1200000,2200000");
  EXPECT_EQ(raw.Text("SELECT power_provenance FROM telemetry"), "measured");
  EXPECT_EQ(raw.Int("SELECT pgfault FROM telemetry"), 1000);
  EXPECT_EQ(raw.Int("SELECT mem_freq_hz FROM telemetry"), 2133000000);
  EXPECT_EQ(
      raw.Int("SELECT COUNT(*) FROM batches WHERE seq = 1 AND attempt = 1"), 1);
}

// sqlite3 and pandas users see no loss as NULL, in the minibatches and in
// the run's aggregates (a twin's inference run stored 0.000 before).
TEST_F(SqliteIngestTest, NoLossIsNull) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 0, 2);
  for (int i = 0; i < 3; ++i) {
    v1::MinibatchRecord* r = batch.add_minibatches();
    r->set_index(i);
    r->set_e2e_s(0.1);
  }
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);
  ASSERT_TRUE(store_->TransitionRun(run_id_, v1::RUN_STATE_LEASED, "d", "",
                                    clock_.Now()).ok());
  ASSERT_TRUE(store_->TransitionRun(run_id_, v1::RUN_STATE_RUNNING, "", "",
                                    clock_.Now()).ok());
  v1::RunResult result;
  result.set_run_id(run_id_);
  result.set_ok(true);
  ASSERT_TRUE(store_->FinishRun(result, v1::RUN_STATE_DONE, "", clock_.Now()).ok());
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches WHERE loss IS NULL"), 3);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM run_aggregates"
                    " WHERE first_loss IS NULL AND last_loss IS NULL"),
            1);
  auto aggregates = store_->GetSweepAggregates(sweep_id_);
  ASSERT_TRUE(aggregates.ok()) << aggregates.status();
  ASSERT_EQ(aggregates->size(), 1u);
  EXPECT_FALSE((*aggregates)[0].aggregates.summary.has_first_loss());
  EXPECT_EQ((*aggregates)[0].aggregates.summary.minibatches(), 3);
}

// Rails and temperatures are readable with plain SQL (schema 14): JSON
// object columns beside extras_pb and one row per rail (zone) in the views.
TEST_F(SqliteIngestTest, RailsAndTemperaturesAreReadableWithSql) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 0, 0);
  v1::TelemetrySample* s = batch.add_telemetry();
  s->set_t_s(0.5);
  for (const auto& [name, mw] : {std::make_pair("VDD_IN", 6918.25),
                                 std::make_pair("VDD_CPU_GPU_CV", 2100.0)}) {
    v1::RailSample* rail = s->add_rails();
    rail->set_name(name);
    rail->set_power_mw(mw);
  }
  v1::Temperature* t = s->add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(47.5);
  s->mutable_counters()->set_pgmajfault(3);
  batch.add_telemetry()->set_t_s(0.6);  // nothing of the kind: NULL
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT rails_mw FROM telemetry WHERE t_s = 0.5"),
            "{\"VDD_IN\":6918.25,\"VDD_CPU_GPU_CV\":2100}");
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry WHERE t_s = 0.6"
                    " AND rails_mw IS NULL AND temperatures_c IS NULL"),
            1);
  EXPECT_EQ(raw.Text("SELECT group_concat(rail || '=' || power_mw, ' ')"
                     " FROM telemetry_rails WHERE run_id = " +
                     absl::StrCat(run_id_)),
            "VDD_IN=6918.25 VDD_CPU_GPU_CV=2100");
  EXPECT_EQ(raw.Text("SELECT zone || '=' || celsius FROM telemetry_temperatures"),
            "CPU-therm=47.5");
  EXPECT_EQ(raw.Int("SELECT pgmajfault FROM telemetry WHERE t_s = 0.5"), 3);
}

// Rows stored by schema 7 to 13 (extras_pb only) get the columns when the
// store opens, once.
TEST_F(SqliteIngestTest, OlderRowsGetTheSqlColumnsWhenTheStoreOpens) {
  v1::DataBatch batch = MakeBatch(run_id_, 1, 0, 0);
  v1::TelemetrySample* s = batch.add_telemetry();
  s->set_t_s(0.5);
  s->add_rails()->set_name("VDD_IN");
  s->mutable_rails(0)->set_power_mw(5000);
  ASSERT_EQ(store_->IngestBatch(batch).value(), IngestOutcome::kStored);
  store_.reset();
  {
    RawConnection raw(path_, /*read_only=*/false);
    ASSERT_TRUE(raw.Exec("UPDATE telemetry SET rails_mw = NULL;"
                         " DELETE FROM meta WHERE key = 'telemetry_columns'")
                    .ok());
  }
  store_ = OpenStore(path_);
  ASSERT_NE(store_, nullptr);
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT rail || '=' || power_mw FROM telemetry_rails"),
            "VDD_IN=5000");
}

TEST_F(SqliteIngestTest, RefusedBatchesLeaveNoRow) {
  EXPECT_EQ(store_->IngestBatch(MakeBatch(4242, 1, 5, 2)).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->IngestBatch(MakeBatch(run_id_, 0, 5, 2)).status().code(),
            absl::StatusCode::kInvalidArgument);
  RawConnection raw(path_);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM batches"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM minibatches"), 0);
  EXPECT_EQ(raw.Int("SELECT COUNT(*) FROM telemetry"), 0);
}

TEST_F(SqliteIngestTest, ResultHasFlatReadableColumns) {
  ASSERT_TRUE(store_
                  ->TransitionRun(run_id_, v1::RUN_STATE_LEASED, "host-0", "",
                                  clock_.Now())
                  .ok());
  ASSERT_TRUE(
      store_
          ->TransitionRun(run_id_, v1::RUN_STATE_RUNNING, "", "", clock_.Now())
          .ok());
  v1::RunResult result;
  result.set_run_id(run_id_);
  result.set_ok(true);
  result.set_energy_j(50);
  result.set_energy_provenance(v1::PROVENANCE_MODELED);
  result.mutable_provenance()->set_framework_version("1.13.0");
  result.mutable_applied_mode()->mutable_actual()->set_cpu_cores(4);
  ASSERT_TRUE(
      store_->FinishRun(result, v1::RUN_STATE_DONE, "", clock_.Now()).ok());
  RawConnection raw(path_);
  EXPECT_EQ(raw.Text("SELECT framework_version || '/' || energy_provenance "
                     "FROM run_results"),
            "1.13.0/modeled");
  EXPECT_EQ(raw.Int("SELECT ok FROM run_results WHERE attempt = 1"), 1);
  EXPECT_THAT(
      raw.Text(absl::StrCat(
          "SELECT applied_mode_json FROM runs WHERE run_id = ", run_id_)),
      HasSubstr("cpu_cores"));
}

}  // namespace
}  // namespace powersweep
