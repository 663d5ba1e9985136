#include "controller/importer/import_run.h"

#include <string>

#include "controller/importer/tegrastats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

v1::DeviceIdentity Orin() {
  v1::DeviceIdentity id;
  id.set_device_id("orin-07");
  id.set_device_class("orin-agx");
  return id;
}

TEST(ImportRunTest, TegrastatsLogBecomesADoneRunWithItsTelemetry) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  const absl::Time now = absl::FromUnixSeconds(1800000000);
  ASSERT_TRUE(store->UpsertDevice(Orin(), v1::DeviceCapabilities(), now).ok());
  auto log = ReadTegrastatsFile(
      std::string(FIXTURES_DIR) + "/tegrastats/orin-agx-jp6.log", 1000);
  ASSERT_TRUE(log.ok()) << log.status();

  auto imp = TelemetryImport::Begin(store.get(), Orin(), "tegrastats:a.log", now);
  ASSERT_TRUE(imp.ok()) << imp.status();
  // Two chunks: two batches.
  ASSERT_TRUE(imp->Add({log->samples[0], log->samples[1]}).ok());
  ASSERT_TRUE(imp->Add({log->samples[2]}).ok());
  auto resp = imp->Finish(now + absl::Seconds(1));
  ASSERT_TRUE(resp.ok()) << resp.status();
  EXPECT_EQ(resp->samples(), 3);

  auto run = store->GetRun(resp->run_id());
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state(), v1::RUN_STATE_DONE);
  EXPECT_EQ(run->device_id(), "orin-07");
  EXPECT_EQ(run->spec().device_class(), "orin-agx");
  EXPECT_EQ(run->spec().sweep_id(), resp->sweep_id());
  auto tel = store->GetTelemetry(resp->run_id());
  ASSERT_TRUE(tel.ok());
  ASSERT_EQ(tel->size(), 3u);
  EXPECT_DOUBLE_EQ((*tel)[2].t_s(), 3);
  EXPECT_DOUBLE_EQ((*tel)[1].power_mw(), 11975 + 2395 + 5645);
  auto result = store->GetRunResult(resp->run_id());
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->ok());
  EXPECT_DOUBLE_EQ(result->duration_s(), 3);
  // The energy is in run_results, as for an agent's run: the trapezoid
  // integral of the log's total power over its samples (mW x s / 1000).
  double joules = 0;
  for (size_t i = 1; i < tel->size(); ++i) {
    joules += ((*tel)[i - 1].power_mw() + (*tel)[i].power_mw()) / 2 *
              ((*tel)[i].t_s() - (*tel)[i - 1].t_s()) / 1000;
  }
  EXPECT_GT(joules, 0);
  EXPECT_NEAR(result->energy_j(), joules, 1e-9);
  EXPECT_EQ(result->energy_provenance(), (*tel)[0].power_provenance());
  EXPECT_NE(result->energy_provenance(), v1::PROVENANCE_UNSPECIFIED);
  auto sweep = store->GetSweepStatus(resp->sweep_id());
  ASSERT_TRUE(sweep.ok());
  EXPECT_EQ(sweep->name(), "import: tegrastats:a.log");
  EXPECT_EQ(sweep->done(), 1);
  // Exported like any run.
  std::string csv;
  ASSERT_TRUE(store
                  ->ExportCsv(resp->sweep_id(), "telemetry",
                              [&](const std::string& c) { csv += c; })
                  .ok());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + 3
  // Nothing is left for the scheduler.
  auto pending = store->ListPendingRuns(10);
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
}

// The 2026 line formats: the energy stored is exactly the trapezoid of
// the board's input rail over the lines (the values printed in the logs).
struct NewFormat {
  std::string log;
  std::string device_class;
  double energy_j;
};

class ImportNewFormatTest : public ::testing::TestWithParam<NewFormat> {};

TEST_P(ImportNewFormatTest, EnergyIsTheInputRailsIntegral) {
  const NewFormat& f = GetParam();
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  const absl::Time now = absl::FromUnixSeconds(1800000000);
  v1::DeviceIdentity id;
  id.set_device_id("board-1");
  id.set_device_class(f.device_class);
  ASSERT_TRUE(store->UpsertDevice(id, v1::DeviceCapabilities(), now).ok());
  auto log = ReadTegrastatsFile(
      std::string(FIXTURES_DIR) + "/tegrastats/" + f.log, 1000);
  ASSERT_TRUE(log.ok()) << log.status();
  auto imp = TelemetryImport::Begin(store.get(), id, "tegrastats:" + f.log,
                                    now);
  ASSERT_TRUE(imp.ok()) << imp.status();
  ASSERT_TRUE(imp->Add(log->samples).ok());
  auto resp = imp->Finish(now + absl::Seconds(1));
  ASSERT_TRUE(resp.ok()) << resp.status();
  auto result = store->GetRunResult(resp->run_id());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NEAR(result->energy_j(), f.energy_j, 1e-9);
  EXPECT_EQ(result->energy_provenance(), v1::PROVENANCE_MEASURED);
}

INSTANTIATE_TEST_SUITE_P(
    JetPack6and7, ImportNewFormatTest,
    ::testing::Values(
        // VIN 19780 then 124486 mW, 1 s apart.
        NewFormat{"thor-jp7.log", "thor", (19780 + 124486) / 2.0 / 1000},
        NewFormat{"orin-nano-jp62.log", "orin-nano",
                  (5251 + 16321) / 2.0 / 1000},
        NewFormat{"orin-nx-jp62.log", "orin-nx", (4304 + 9876) / 2.0 / 1000},
        // 2 s apart.
        NewFormat{"orin-nano-jp72.log", "orin-nano",
                  (3462 + 19862) / 2.0 * 2 / 1000}),
    [](const ::testing::TestParamInfo<NewFormat>& info) {
      std::string name = info.param.log.substr(0, info.param.log.find('.'));
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

TEST(ImportRunTest, AbortedImportIsFailedWithTheReason) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  const absl::Time now = absl::FromUnixSeconds(1800000000);
  ASSERT_TRUE(store->UpsertDevice(Orin(), v1::DeviceCapabilities(), now).ok());
  auto imp = TelemetryImport::Begin(store.get(), Orin(), "x", now);
  ASSERT_TRUE(imp.ok());
  imp->Abort("client went away", now);
  auto run = store->GetRun(imp->run_id());
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state(), v1::RUN_STATE_FAILED);
  EXPECT_THAT(run->reason(), HasSubstr("client went away"));
}

TEST(ImportRunTest, DeviceWithoutClassIsRejected) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  v1::DeviceIdentity id;
  id.set_device_id("x");
  auto imp = TelemetryImport::Begin(store.get(), id, "s",
                                    absl::FromUnixSeconds(1800000000));
  EXPECT_EQ(imp.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ImportRunTest, ChunkStreamNamesTheDeviceFirstAndStoresEveryChunk) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  FakeClock clock(absl::FromUnixSeconds(1800000000));
  v1::DeviceStatus dev;
  *dev.mutable_identity() = Orin();
  ASSERT_TRUE(store->UpsertDevice(Orin(), v1::DeviceCapabilities(), clock.Now()).ok());
  std::vector<v1::ImportTelemetryChunk> chunks(3);
  chunks[0].set_device_id("orin-07");
  chunks[0].set_source("tegrastats:b.log");
  chunks[0].set_started_unix_ms(1795860001000);
  for (int i = 0; i < 5; ++i) {
    v1::TelemetrySample* s = chunks[i < 2 ? 0 : 2].add_samples();
    s->set_t_s(i);
    s->set_power_mw(1000);
  }
  size_t next = 0;
  auto feed = [&](v1::ImportTelemetryChunk* c) {
    if (next == chunks.size()) return false;
    *c = chunks[next++];
    return true;
  };
  auto resp = ImportTelemetryChunks(store.get(), {dev}, feed, &clock);
  ASSERT_TRUE(resp.ok()) << resp.status();
  EXPECT_EQ(resp->samples(), 5);
  EXPECT_EQ(*store->CountBatches(resp->run_id()), 2);  // the empty chunk adds none
  EXPECT_EQ(store->GetSweepStatus(resp->sweep_id())->name(),
            "import: tegrastats:b.log from 2026-11-28T10:00:01Z");

  next = 0;
  chunks[0].set_device_id("nope");
  auto unknown = ImportTelemetryChunks(store.get(), {dev}, feed, &clock);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(unknown.status().message(), HasSubstr("'nope'"));
}

TEST(ImportRunTest, StreamOverTheSampleLimitStoresNothing) {
  TempDir dir;
  auto store = OpenStore(dir.path() + "/store.db");
  ASSERT_NE(store, nullptr);
  FakeClock clock(absl::FromUnixSeconds(1800000000));
  v1::DeviceStatus dev;
  *dev.mutable_identity() = Orin();
  std::vector<v1::ImportTelemetryChunk> chunks(3);
  chunks[0].set_device_id("orin-07");
  for (int i = 0; i < 9; ++i) chunks[i / 3].add_samples()->set_t_s(i);
  size_t next = 0;
  auto feed = [&](v1::ImportTelemetryChunk* c) {
    if (next == chunks.size()) return false;
    *c = chunks[next++];
    return true;
  };
  auto over = ImportTelemetryChunks(store.get(), {dev}, feed, &clock, 8);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.status().message(), HasSubstr("--max_import_samples"));
  EXPECT_THAT(over.status().message(), HasSubstr("more than 8 samples"));
  EXPECT_TRUE(store->ListSweeps()->empty());  // no import sweep, no run

  next = 0;
  auto at_limit = ImportTelemetryChunks(store.get(), {dev}, feed, &clock, 9);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status();
  EXPECT_EQ(at_limit->samples(), 9);
}

}  // namespace
}  // namespace powersweep
