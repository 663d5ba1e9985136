// The controller's /metrics page over a real Fleet and SqliteStore: what
// an operator reads from it after agents took, ran and reported runs.
#include "controller/metrics/controller_metrics_page.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "storage/sqlite_store.h"
#include "tests/common/metrics/series_value.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::powersweep::testing::SeriesValue;
using ::testing::HasSubstr;
using ::testing::Optional;

class ControllerMetricsPageTest : public FleetTest {
 protected:
  std::string Page() {
    ControllerMetricsSources sources;
    sources.store = store_.get();
    sources.fleet = fleet_.get();
    auto* sqlite = dynamic_cast<SqliteStore*>(store_.get());
    if (sqlite != nullptr) sources.store_errors = &sqlite->error_counts();
    return RenderControllerMetrics(sources);
  }
};

TEST_F(ControllerMetricsPageTest, AnEmptyControllerReportsZeros) {
  const std::string page = Page();
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_connected"), Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_store_up"), Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"pending\"}"),
              Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_dispatch_duration_seconds_count"),
              Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_store_errors_total{kind=\"busy\"}"),
              Optional(0.0));
  EXPECT_THAT(page,
              HasSubstr("# TYPE powersweep_ingest_batches_total counter"));
  EXPECT_THAT(
      page, HasSubstr("# TYPE powersweep_dispatch_duration_seconds histogram"));
}

TEST_F(ControllerMetricsPageTest, RunsAgentsAndIngestAfterOneRunFinished) {
  auto runs = AddSweep({HostRun(), HostRun(), HostRun()});
  Connect("host-0");
  Connect("host-1");
  SendStarted("host-0", runs[0]);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/3);
  SendBatch("host-0", runs[0], 1, /*minibatches=*/3);  // a resend
  SendBatch("host-0", runs[0], 2, /*minibatches=*/2);
  SendBatch("host-1", runs[0], 1);  // not host-1's run: dropped
  SendFinished("host-0", runs[0], /*batches=*/2);

  const std::string page = Page();
  // host-0 finished its run and took the third; host-1 holds the second.
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"done\"}"),
              Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"active\"}"),
              Optional(2.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"pending\"}"),
              Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_sweeps{state=\"unfinished\"}"),
              Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_connected"), Optional(2.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_healthy"), Optional(2.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_busy"), Optional(2.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs_leased_total"), Optional(3.0));
  EXPECT_THAT(
      SeriesValue(page, "powersweep_ingest_batches_total{outcome=\"stored\"}"),
      Optional(2.0));
  EXPECT_THAT(
      SeriesValue(page,
                  "powersweep_ingest_batches_total{outcome=\"duplicate\"}"),
      Optional(1.0));
  EXPECT_THAT(
      SeriesValue(page, "powersweep_ingest_batches_total{outcome=\"dropped\"}"),
      Optional(1.0));
  EXPECT_THAT(
      SeriesValue(page, "powersweep_ingest_rows_total{kind=\"minibatch\"}"),
      Optional(5.0));
  // Every dispatch pass that found an idle agent was timed.
  const std::optional<double> passes =
      SeriesValue(page, "powersweep_dispatch_duration_seconds_count");
  ASSERT_TRUE(passes.has_value()) << page;
  EXPECT_GE(*passes, 2);
  EXPECT_THAT(
      SeriesValue(page,
                  "powersweep_dispatch_duration_seconds_bucket{le=\"+Inf\"}"),
      Optional(*passes));
}

TEST_F(ControllerMetricsPageTest, DrainedAgentsAreCounted) {
  Connect("host-0");
  Connect("host-1");
  ASSERT_TRUE(fleet_->SetDeviceState("host-1", v1::DEVICE_ACTION_DRAIN).ok());
  EXPECT_THAT(SeriesValue(Page(), "powersweep_agents_drained"), Optional(1.0));
}

}  // namespace
}  // namespace powersweep
