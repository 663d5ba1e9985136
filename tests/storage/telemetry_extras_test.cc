// Migrations 4 and 7: tenants of minibatch records in their own column;
// the parts of a telemetry sample beyond the fixed columns (rails,
// temperatures, memory clock, kernel counters) as protobuf bytes in
// telemetry.extras_pb, the memory clock and counters also in columns of
// their own. (That they read back and export is in
// store_conformance_ingest_test.cc and store_conformance_export_test.cc.)
#include "storage/telemetry_extras.h"

#include <string>

#include "absl/strings/escaping.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

TEST(TelemetryExtrasTest, ExtrasAreProtobufBytesBesideTheirColumns) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  auto sweep = store->CreateSweep(MakeSpec("s"), MakeRuns(1), kNow);
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  const int64_t id = (*store->ListRuns(*sweep))[0].spec().run_id();

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
  s->mutable_counters()->set_pgfault(1000);
  s->mutable_counters()->set_nr_written(345);
  batch.add_telemetry()->set_t_s(0.6);  // no extras
  ASSERT_TRUE(store->IngestBatch(batch).ok());

  RawConnection raw(path);
  EXPECT_EQ(raw.Int("SELECT COUNT(DISTINCT tenant) FROM minibatches"), 2);
  EXPECT_EQ(raw.Text("SELECT typeof(extras_pb) FROM telemetry WHERE t_s = 0.5"),
            "blob");
  EXPECT_EQ(raw.Int("SELECT rails_json IS NULL FROM telemetry WHERE t_s = 0.5"),
            1);
  EXPECT_EQ(raw.Int("SELECT extras_pb IS NULL FROM telemetry WHERE t_s = 0.6"),
            1);
  EXPECT_EQ(raw.Int("SELECT mem_freq_hz FROM telemetry WHERE t_s = 0.5"),
            2133000000);
  EXPECT_EQ(raw.Int("SELECT pgfault FROM telemetry WHERE t_s = 0.5"), 1000);
  EXPECT_EQ(raw.Int("SELECT nr_written FROM telemetry WHERE t_s = 0.5"), 345);
  EXPECT_EQ(
      raw.Int("SELECT pgfault IS NULL AND mem_freq_hz IS NULL FROM telemetry"
              " WHERE t_s = 0.6"),
      1);
  std::string expected;
  EncodeTelemetryExtras(*s, &expected);
  EXPECT_EQ(
      raw.Text("SELECT lower(hex(extras_pb)) FROM telemetry WHERE t_s = 0.5"),
      absl::BytesToHexString(expected));
}

}  // namespace
}  // namespace powersweep
