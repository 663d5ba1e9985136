// The /metrics pages of a real controller and a real twin agent, scraped
// with a plain HTTP client after a short sweep, as an operator's
// Prometheus would; and the refusal of a metrics address other machines
// could reach.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/http/http_test_client.h"
#include "tests/common/metrics/series_value.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

constexpr int kRepetitions = 3;
constexpr int kMinibatches = 20;

// Runs Prometheus' `promtool check metrics` on `page` when promtool is
// installed (Debian's prometheus package; or $PROMTOOL): "" when it passes
// or is not there, else its complaints.
std::string PromtoolProblems(const std::string& page, const std::string& dir) {
  const char* env = std::getenv("PROMTOOL");
  const std::string promtool = env != nullptr ? env : "/usr/bin/promtool";
  if (access(promtool.c_str(), X_OK) != 0) return "";
  const std::string file = dir + "/page.txt";
  std::ofstream(file) << page;
  const std::string log = dir + "/promtool.log";
  Subprocess p({"/bin/sh", "-c", promtool + " check metrics < " + file}, log);
  const int status = p.Wait();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "" : ReadFile(log);
}

std::string Scrape(int port) {
  RawHttpResponse r = HttpGet(port, "/metrics");
  EXPECT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.Header("Content-Type"),
            "text/plain; version=0.0.4; charset=utf-8");
  return r.body;
}

TEST(ObservabilityTest, ControllerAndTwinAgentPagesAfterAShortSweep) {
  const std::string files = MakeTempDir("powersweep-obs");
  LocalFleetOptions options;
  options.controller_args = {"--metrics_listen=127.0.0.1:0",
                             "--metrics_port_file=" + files + "/controller"};
  LocalFleet fleet(options);
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  const int controller_port = LocalFleet::PortFromFile(files + "/controller");
  ASSERT_GT(controller_port, 0) << fleet.Logs();

  fleet.StartAgent(
      "orin-agx-twin-0",
      {"--platform=twin", "--device_class=orin-agx", "--instance=0",
       "--twin_time_scale=0.01", "--metrics_listen=127.0.0.1:0",
       "--metrics_port_file=" + files + "/agent"});
  const int agent_port = LocalFleet::PortFromFile(files + "/agent");
  ASSERT_GT(agent_port, 0) << fleet.Logs();
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] {
        return SeriesValue(Scrape(controller_port),
                           "powersweep_agents_connected") == 1.0;
      },
      30))
      << fleet.Logs();

  std::string error;
  const int64_t sweep =
      fleet.Submit(OrinTwinSweep("it-observability", v1::TASK_TRAIN,
                                 kRepetitions, kMinibatches),
                   &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 120))
      << fleet.Logs();
  const v1::SweepStatus status = fleet.GetSweep(sweep);
  ASSERT_EQ(status.done(), kRepetitions);

  // The controller: the sweep's runs are done, the agent is connected,
  // healthy and idle, every record was ingested once, nothing failed.
  const std::string page = Scrape(controller_port);
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"done\"}"),
              Optional(static_cast<double>(status.done())))
      << page;
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"failed\"}"),
              Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs{state=\"pending\"}"),
              Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_sweeps{state=\"finished\"}"),
              Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_connected"), Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_healthy"), Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agents_busy"), Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_runs_leased_total"),
              Optional(static_cast<double>(kRepetitions)));
  EXPECT_THAT(
      SeriesValue(page, "powersweep_ingest_rows_total{kind=\"minibatch\"}"),
      Optional(static_cast<double>(kRepetitions * kMinibatches)));
  EXPECT_GT(
      SeriesValue(page, "powersweep_ingest_rows_total{kind=\"telemetry\"}")
          .value_or(0),
      0);
  EXPECT_GE(SeriesValue(page, "powersweep_dispatch_duration_seconds_count")
                .value_or(0),
            1);
  EXPECT_THAT(
      SeriesValue(page, "powersweep_store_errors_total{kind=\"other\"}"),
      Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_store_errors_total{kind=\"busy\"}"),
              Optional(0.0));

  // The agent: connected and idle, its runs sampled, its (simulated)
  // board drawing power at a temperature and clocks.
  const std::string agent = Scrape(agent_port);
  EXPECT_THAT(agent, HasSubstr("powersweep_agent_info{device_id=\"orin-agx-"
                               "twin-0\",device_class=\"orin-agx\","
                               "platform=\"twin\""))
      << agent;
  EXPECT_THAT(SeriesValue(agent, "powersweep_agent_connected"), Optional(1.0));
  EXPECT_THAT(SeriesValue(agent, "powersweep_agent_healthy"), Optional(1.0));
  EXPECT_THAT(SeriesValue(agent, "powersweep_agent_run_active"), Optional(0.0));
  EXPECT_THAT(SeriesValue(agent, "powersweep_agent_spooled_messages"),
              Optional(0.0));
  EXPECT_GT(
      SeriesValue(agent, "powersweep_agent_run_samples_total").value_or(0), 0);
  EXPECT_GT(SeriesValue(
                agent, "powersweep_agent_power_watts{provenance=\"simulated\"}")
                .value_or(0),
            0)
      << agent;
  EXPECT_THAT(agent, HasSubstr("powersweep_agent_temperature_celsius{sensor="));
  EXPECT_GT(
      SeriesValue(agent, "powersweep_agent_cpu_frequency_hertz").value_or(0),
      0);
  EXPECT_EQ(HttpGet(agent_port, "/").status, 404);
  // Both pages are valid exposition text (when promtool is installed).
  EXPECT_EQ(PromtoolProblems(page, files), "");
  EXPECT_EQ(PromtoolProblems(agent, files), "");
}

// A controller or agent asked to serve metrics on 0.0.0.0 without
// --metrics_allow_remote refuses to start, naming the flags.
TEST(ObservabilityTest, ANonLoopbackMetricsAddressNeedsAllowRemote) {
  const std::string dir = MakeTempDir("powersweep-obs");
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{POWERSWEEP_CONTROLLER_BIN,
                                 "--listen=127.0.0.1:0", "--db=" + dir + "/db",
                                 "--metrics_listen=0.0.0.0:0"},
        std::vector<std::string>{
            POWERSWEEP_AGENT_BIN, "--platform=twin", "--device_class=orin-agx",
            "--work_dir=" + dir + "/agent", "--metrics_listen=0.0.0.0:0"}}) {
    const std::string log =
        dir + "/refused-" + argv[0].substr(argv[0].rfind('/') + 1) + ".log";
    Subprocess p(argv, log);
    const int status = p.Wait();
    ASSERT_TRUE(WIFEXITED(status)) << ReadFile(log);
    EXPECT_EQ(WEXITSTATUS(status), 2) << ReadFile(log);
    EXPECT_THAT(ReadFile(log), HasSubstr("--metrics_listen=0.0.0.0:0"));
    EXPECT_THAT(ReadFile(log), HasSubstr("--metrics_allow_remote"));
  }
}

}  // namespace
}  // namespace powersweep::testing
