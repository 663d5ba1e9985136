// Migration 4: tenants of minibatch records, and the parts of a telemetry
// sample beyond the fixed columns (temperatures, memory clock, kernel
// counters) survive the store and the CSV export.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(TelemetryExtrasTest, TenantsTemperaturesMemoryClockAndCountersRoundTrip) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  auto sweep = store->CreateSweep(MakeSpec("s"), MakeRuns(1), kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();
  ASSERT_TRUE(
      store->TransitionRun(id, v1::RUN_STATE_LEASED, "host-0", "", kNow).ok());

  v1::DataBatch batch = MakeBatch(id, 1, 0, 0);
  for (int tenant = 0; tenant < 2; ++tenant) {
    v1::MinibatchRecord r = MakeMinibatch(0);
    r.set_tenant(tenant);
    *batch.add_minibatches() = r;
  }
  v1::TelemetrySample* s = batch.add_telemetry();
  s->set_t_s(0.5);
  s->set_mem_freq_hz(2133000000);
  v1::Temperature* t = s->add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(41.5);
  v1::KernelCounters* k = s->mutable_counters();
  k->set_pgfault(1000);
  k->set_pgmajfault(7);
  k->set_nr_dirty(12);
  k->set_nr_written(345);
  k->set_tenant_pgfault(99);
  ASSERT_TRUE(store->IngestBatch(batch).ok());

  auto mb = store->GetMinibatches(id);
  ASSERT_TRUE(mb.ok()) << mb.status();
  ASSERT_EQ(mb->size(), 2u);
  EXPECT_EQ((*mb)[0].tenant(), 0);
  EXPECT_EQ((*mb)[1].tenant(), 1);

  auto tel = store->GetTelemetry(id);
  ASSERT_TRUE(tel.ok()) << tel.status();
  ASSERT_EQ(tel->size(), 1u);
  const v1::TelemetrySample& got = (*tel)[0];
  EXPECT_EQ(got.mem_freq_hz(), 2133000000);
  ASSERT_EQ(got.temperatures_size(), 1);
  EXPECT_EQ(got.temperatures(0).name(), "CPU-therm");
  EXPECT_TRUE(got.has_counters());
  EXPECT_EQ(got.counters().pgfault(), 1000);
  EXPECT_EQ(got.counters().nr_written(), 345);
  EXPECT_EQ(got.counters().tenant_pgfault(), 99);

  auto csv = [&](const std::string& table) {
    std::string text;
    EXPECT_TRUE(store
                    ->ExportCsv(*sweep, table,
                                [&](const std::string& chunk) { text += chunk; })
                    .ok());
    return text;
  };
  const std::string telemetry = csv("telemetry");
  EXPECT_THAT(telemetry, HasSubstr("pgfault"));
  EXPECT_THAT(telemetry, HasSubstr(",1000,"));
  EXPECT_THAT(csv("minibatches"), HasSubstr("tenant"));
}

}  // namespace
}  // namespace powersweep
