// The agent's /metrics page, its latest reading and the observing
// platform: what an operator reads about a device from it.
#include "agent/metrics/agent_metrics_page.h"
#include "agent/run/latest_reading.h"
#include "agent/run/observed_platform.h"
#include "agent/platform/fake_platform.h"
#include "common/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/common/metrics/series_value.h"

namespace powersweep {
namespace {

using ::powersweep::testing::SeriesValue;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

v1::DeviceIdentity TwinIdentity() {
  v1::DeviceIdentity id;
  id.set_device_id("orin-agx-twin-0");
  id.set_device_class("orin-agx");
  id.set_platform("twin");
  id.set_agent_version("0.1.0");
  return id;
}

v1::TelemetrySample TwinSample() {
  v1::TelemetrySample s;
  for (int64_t khz : {1497600, 1497600, 729600}) {
    s.add_cores()->set_freq_khz(khz);
  }
  s.set_power_mw(12500);
  s.set_power_provenance(v1::PROVENANCE_SIMULATED);
  v1::RailSample* rail = s.add_rails();
  rail->set_name("VDD_GPU_SOC");
  rail->set_power_mw(4250);
  rail->set_provenance(v1::PROVENANCE_SIMULATED);
  v1::Temperature* t = s.add_temperatures();
  t->set_name("CPU-therm");
  t->set_celsius(48.5);
  s.set_gpu_freq_hz(1300500000);
  s.set_gpu_util(0.75);
  s.set_mem_freq_hz(3199000000);
  return s;
}

TEST(AgentMetricsPageTest, ATwinsReadingIsLabelledSimulated) {
  FakeClock clock;
  LatestReading reading(&clock);
  reading.Observe(TwinSample(), /*count=*/true);
  clock.Advance(absl::Seconds(2));
  AgentStatus status;
  status.connected = true;
  status.registrations = 1;
  status.run_id = 42;
  status.spooled = 3;
  const std::string page = RenderAgentMetrics(
      TwinIdentity(), status, reading.Get(), clock.MonotonicNanos());

  EXPECT_THAT(SeriesValue(page,
                          "powersweep_agent_info{device_id=\"orin-agx-twin-0\","
                          "device_class=\"orin-agx\",platform=\"twin\","
                          "agent_version=\"0.1.0\"}"),
              Optional(1.0))
      << page;
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_connected"), Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_run_active"), Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_run_id"), Optional(42.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_spooled_messages"),
              Optional(3.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_run_samples_total"),
              Optional(1.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_reading_age_seconds"),
              Optional(2.0));
  EXPECT_THAT(
      SeriesValue(page,
                  "powersweep_agent_power_watts{provenance=\"simulated\"}"),
      Optional(12.5));
  EXPECT_THAT(
      SeriesValue(page,
                  "powersweep_agent_rail_power_watts{rail=\"VDD_GPU_SOC\","
                  "provenance=\"simulated\"}"),
      Optional(4.25));
  EXPECT_THAT(
      SeriesValue(page,
                  "powersweep_agent_temperature_celsius{sensor=\"CPU-therm\"}"),
      Optional(48.5));
  // The highest of the sampled cores.
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_cpu_frequency_hertz"),
              Optional(1497600000.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_gpu_frequency_hertz"),
              Optional(1300500000.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_gpu_utilization"),
              Optional(0.75));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_emc_frequency_hertz"),
              Optional(3199000000.0));
}

TEST(AgentMetricsPageTest, BeforeAnySampleOnlyTheAgentsStateIsShown) {
  FakeClock clock;
  LatestReading reading(&clock);
  const std::string page =
      RenderAgentMetrics(TwinIdentity(), {}, reading.Get(), 0);
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_connected"), Optional(0.0));
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_run_active"), Optional(0.0));
  EXPECT_THAT(page, Not(HasSubstr("powersweep_agent_power_watts")));
  EXPECT_THAT(page, Not(HasSubstr("powersweep_agent_reading_age_seconds")));
  EXPECT_THAT(page, Not(HasSubstr("powersweep_agent_healthy")));
}

TEST(AgentMetricsPageTest, TheLatestHealthCheckIsAGauge) {
  FakeClock clock;
  LatestReading reading(&clock);
  AgentStatus status;
  status.healthy = false;
  std::string page = RenderAgentMetrics(TwinIdentity(), status, reading.Get(), 0);
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_healthy"), Optional(0.0));
  status.healthy = true;
  page = RenderAgentMetrics(TwinIdentity(), status, reading.Get(), 0);
  EXPECT_THAT(SeriesValue(page, "powersweep_agent_healthy"), Optional(1.0));
}

TEST(LatestReadingTest, ASampleWithoutReadingsKeepsThePreviousOne) {
  FakeClock clock;
  LatestReading reading(&clock);
  reading.Observe(TwinSample(), /*count=*/true);
  v1::TelemetrySample empty;
  empty.set_cpu_util(0.5);
  reading.Observe(empty, /*count=*/true);
  Reading r = reading.Get();
  EXPECT_EQ(r.samples, 2);
  EXPECT_DOUBLE_EQ(r.power_w, 12.5);
  // A newer sample with fewer sensors replaces the lists.
  v1::TelemetrySample fewer;
  fewer.set_power_mw(1000);
  reading.Observe(fewer, /*count=*/false);
  r = reading.Get();
  EXPECT_EQ(r.samples, 2);
  EXPECT_DOUBLE_EQ(r.power_w, 1.0);
  EXPECT_TRUE(r.rails.empty());
  EXPECT_TRUE(r.temperatures_c.empty());
}

TEST(ObservedPlatformTest, ForwardsCallsAndKeepsWhatTheSampleReads) {
  FakeClock clock;
  LatestReading reading(&clock);
  FakePlatform inner({0, 1});
  ObservedPlatform observed(&inner, &reading);
  EXPECT_EQ(observed.Identity().device_id(), inner.Identity().device_id());
  v1::PowerMode mode;
  mode.set_cpu_cores(1);
  ASSERT_TRUE(observed.Apply(mode).ok());
  EXPECT_EQ(inner.applies(), 1);
  EXPECT_EQ(observed.RunCpus(), std::vector<int>{0});

  v1::TelemetrySample sample;
  sample.add_cores();
  observed.Sample({0}, &sample);
  EXPECT_EQ(sample.cores(0).freq_khz(), FakePlatform::kFreqKhz);
  Reading r = reading.Get();
  EXPECT_TRUE(r.present);
  EXPECT_EQ(r.cpu_freq_hz, FakePlatform::kFreqKhz * 1000);
  EXPECT_EQ(r.samples, 0);  // the platform's samples are not counted
  observed.Restore();
  EXPECT_EQ(inner.restores(), 1);
}

}  // namespace
}  // namespace powersweep
