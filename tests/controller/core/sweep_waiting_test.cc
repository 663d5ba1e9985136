// Why a stalled sweep's runs wait: by class or by placed device, each
// device's reason; nothing for runs a device could take.
#include "controller/core/sweep_waiting.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

v1::RunSpec Pending(const std::string& cls) {
  v1::RunSpec r;
  r.set_device_class(cls);
  return r;
}

v1::DeviceStatus Device(const std::string& id, const std::string& cls,
                        bool connected) {
  v1::DeviceStatus d;
  d.mutable_identity()->set_device_id(id);
  d.mutable_identity()->set_device_class(cls);
  d.set_connected(connected);
  return d;
}

TEST(WaitingReasonsTest, NamesEachDeviceOfAStalledClassAndWhy) {
  v1::DeviceStatus nx = Device("xavier-nx-twin-0", "xavier-nx", true);
  nx.set_drained(true);
  v1::DeviceStatus nano = Device("nano-twin-0", "nano", false);
  nano.set_disconnected_unix_ms(absl::ToUnixMillis(kNow - absl::Seconds(250)));
  v1::DeviceStatus hot = Device("nano-twin-1", "nano", true);
  hot.mutable_health()->set_healthy(false);
  hot.mutable_health()->set_reason("board temperature 101.0 C");
  v1::DeviceStatus orin = Device("orin-agx-twin-0", "orin-agx", true);
  orin.set_current_run_id(12);  // busy: its runs are not stalled
  const std::vector<std::string> why = WaitingReasons(
      {Pending("xavier-nx"), Pending("xavier-nx"), Pending("nano"),
       Pending("orin-agx"), Pending("xavier-agx")},
      {nx, nano, hot, orin}, kNow);
  EXPECT_THAT(
      why,
      ElementsAre("1 run waits for a nano: nano-twin-0 is offline "
                  "(disconnected 4m10s ago), nano-twin-1 is failing its "
                  "health check (board temperature 101.0 C)",
                  "1 run waits for a xavier-agx: no xavier-agx device is "
                  "registered",
                  "2 runs wait for a xavier-nx: xavier-nx-twin-0 is drained"));
}

TEST(WaitingReasonsTest, RunsPlacedOnDevicesWaitForThoseDevices) {
  v1::RunSpec placed = Pending("orin-agx");
  placed.add_devices("orin-agx-twin-3");
  v1::DeviceStatus gone = Device("orin-agx-twin-3", "orin-agx", false);
  v1::DeviceStatus idle = Device("orin-agx-twin-0", "orin-agx", true);
  EXPECT_THAT(WaitingReasons({placed, Pending("orin-agx")}, {gone, idle}, kNow),
              ElementsAre("1 run waits for orin-agx-twin-3: "
                          "orin-agx-twin-3 is offline"));
  EXPECT_THAT(WaitingReasons({Pending("orin-agx")}, {idle}, kNow), IsEmpty());
}

}  // namespace
}  // namespace powersweep
