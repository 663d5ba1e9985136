// `powersweep top`: each device's state and newest telemetry, and the
// header that counts devices and shows the sweeps in progress.
#include "controller/cli/top_view.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

std::string Cell(const Table& t, size_t row, const std::string& column) {
  auto it = std::find(t.header.begin(), t.header.end(), column);
  EXPECT_NE(it, t.header.end()) << column;
  if (it == t.header.end()) return "";
  return t.rows.at(row).at(it - t.header.begin());
}

v1::DeviceStatus Device(const std::string& id, bool connected) {
  v1::DeviceStatus d;
  d.mutable_identity()->set_device_id(id);
  d.mutable_identity()->set_device_class("orin-agx");
  d.set_connected(connected);
  return d;
}

v1::TelemetrySample OrinSample() {
  v1::TelemetrySample s;
  s.set_power_mw(23456);
  s.set_power_provenance(v1::PROVENANCE_SIMULATED);
  s.set_cpu_util(0.25);
  for (int64_t khz : {1497600, 2201600, 729600}) {
    s.add_cores()->set_freq_khz(khz);
  }
  s.set_gpu_util(0.875);
  s.set_gpu_freq_hz(1300500000);
  s.set_mem_freq_hz(3199000000);
  s.set_mem_used_bytes(int64_t{6} << 30);
  s.set_mem_total_bytes(int64_t{32} << 30);
  auto* cpu = s.add_temperatures();
  cpu->set_name("CPU-therm");
  cpu->set_celsius(48.5);
  auto* pmic = s.add_temperatures();  // hotter, but not the board's
  pmic->set_name("PMIC-Die");
  pmic->set_celsius(100);
  return s;
}

TEST(TopViewTest, RunningDeviceShowsItsRunAndNewestSample) {
  v1::ListDevicesResponse r;
  v1::DeviceStatus* d = r.add_devices();
  *d = Device("orin-01", true);
  d->set_current_run_id(12);
  *d->mutable_latest() = OrinSample();
  d->set_latest_unix_ms(absl::ToUnixMillis(kNow - absl::Seconds(3)));
  const Table t = TopTable(r, kNow);
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.header.size(), t.numeric.size());
  EXPECT_EQ(Cell(t, 0, "state"), "run 12");
  EXPECT_EQ(Cell(t, 0, "power_w"), "23.46");
  EXPECT_EQ(Cell(t, 0, "power_src"), "simulated");
  EXPECT_EQ(Cell(t, 0, "temp_c"), "48.5");
  EXPECT_EQ(Cell(t, 0, "cpu_pct"), "25");
  EXPECT_EQ(Cell(t, 0, "cpu_mhz"), "2202");
  EXPECT_EQ(Cell(t, 0, "gpu_pct"), "88");
  EXPECT_EQ(Cell(t, 0, "gpu_mhz"), "1300");
  EXPECT_EQ(Cell(t, 0, "emc_mhz"), "3199");
  EXPECT_EQ(Cell(t, 0, "mem_gib"), "6.0/32.0");
  EXPECT_EQ(Cell(t, 0, "sample_age_s"), "3");
}

TEST(TopViewTest, StatesOfIdleDrainedFailingAndOfflineDevices) {
  v1::ListDevicesResponse r;
  *r.add_devices() = Device("idle", true);
  v1::DeviceStatus* drained = r.add_devices();
  *drained = Device("drained", true);
  drained->set_drained(true);
  v1::DeviceStatus* failing = r.add_devices();
  *failing = Device("failing", true);
  failing->mutable_health()->set_healthy(false);
  v1::DeviceStatus* offline = r.add_devices();
  *offline = Device("offline", false);
  *offline->mutable_latest() = OrinSample();  // stale: not shown
  v1::DeviceStatus* draining = r.add_devices();
  *draining = Device("draining", true);
  draining->set_drained(true);
  draining->set_current_run_id(7);
  const Table t = TopTable(r, kNow);
  ASSERT_EQ(t.rows.size(), 5u);
  EXPECT_EQ(Cell(t, 0, "state"), "idle");
  EXPECT_EQ(Cell(t, 1, "state"), "drained");
  EXPECT_EQ(Cell(t, 2, "state"), "FAILING");
  EXPECT_EQ(Cell(t, 3, "state"), "offline");
  EXPECT_EQ(Cell(t, 3, "power_w"), "-");
  EXPECT_EQ(Cell(t, 4, "state"), "run 7 (drained)");
  // No sample reported yet: dashes, not zeros.
  EXPECT_EQ(Cell(t, 0, "power_w"), "-");
  EXPECT_EQ(Cell(t, 0, "cpu_pct"), "-");
}

TEST(TopViewTest, HostWithoutGpuOrMetersShowsDashesNotZeros) {
  v1::ListDevicesResponse r;
  v1::DeviceStatus* d = r.add_devices();
  *d = Device("host-0", true);
  d->mutable_latest()->set_cpu_util(0.5);
  const Table t = TopTable(r, kNow);
  EXPECT_EQ(Cell(t, 0, "cpu_pct"), "50");
  EXPECT_EQ(Cell(t, 0, "power_w"), "-");
  EXPECT_EQ(Cell(t, 0, "gpu_pct"), "-");
  EXPECT_EQ(Cell(t, 0, "temp_c"), "-");
  EXPECT_EQ(Cell(t, 0, "sample_age_s"), "-");
}

TEST(TopViewTest, HeaderCountsDevicesAndListsSweepsInProgress) {
  v1::ListDevicesResponse r;
  v1::DeviceStatus* busy = r.add_devices();
  *busy = Device("a", true);
  busy->set_current_run_id(3);
  *r.add_devices() = Device("b", true);
  *r.add_devices() = Device("c", false);
  v1::ListSweepsResponse sweeps;
  v1::SweepStatus* s = sweeps.add_sweeps();
  s->set_sweep_id(4);
  s->set_name("modes");
  s->set_total(16);
  s->set_done(7);
  s->set_active(1);
  v1::SweepStatus* old = sweeps.add_sweeps();
  old->set_sweep_id(1);
  old->set_finished(true);
  const std::string h =
      TopHeader("127.0.0.1:7070", r, sweeps, kNow, absl::UTCTimeZone());
  EXPECT_THAT(h, HasSubstr("127.0.0.1:7070"));
  EXPECT_THAT(h, HasSubstr("3 devices: 2 connected, 1 running"));
  EXPECT_THAT(h, HasSubstr("sweep 4 'modes': 7/16 done, 1 running"));
  EXPECT_THAT(h, ::testing::Not(HasSubstr("sweep 1")));
}

// A stalled sweep says why its runs wait.
TEST(TopViewTest, HeaderSaysWhyASweepsRunsWait) {
  v1::ListDevicesResponse r;
  v1::ListSweepsResponse sweeps;
  v1::SweepStatus* s = sweeps.add_sweeps();
  s->set_sweep_id(5);
  s->set_name("mixed");
  s->set_total(8);
  s->set_done(6);
  s->set_pending(2);
  s->add_waiting("2 runs wait for a xavier-nx: xavier-nx-twin-0 is drained");
  const std::string h =
      TopHeader("127.0.0.1:7070", r, sweeps, kNow, absl::UTCTimeZone());
  EXPECT_THAT(h, HasSubstr("sweep 5 'mixed': 6/8 done, 0 running\n  2 runs "
                           "wait for a xavier-nx: xavier-nx-twin-0 is "
                           "drained"));
  // watch: no time left to estimate, and the reason.
  const std::string line = ProgressLine(*s, 96);
  EXPECT_THAT(line, HasSubstr("stalled  | 2 runs wait for a xavier-nx: "
                              "xavier-nx-twin-0 is drained"));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("left ~")));
}

}  // namespace
}  // namespace powersweep
