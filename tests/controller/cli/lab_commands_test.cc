// `powersweep devices` shows whether each device is drained, its health
// (ok, or FAILING with the reason; "-" when never checked) and when it was
// last checked; `devices drain|undrain|forget` take those words only.
#include "controller/cli/lab_commands.h"

#include <algorithm>
#include <string>

#include "gtest/gtest.h"

namespace powersweep {
namespace {

std::string Cell(const Table& t, size_t row, const std::string& column) {
  auto it = std::find(t.header.begin(), t.header.end(), column);
  EXPECT_NE(it, t.header.end()) << column;
  if (it == t.header.end()) return "";
  return t.rows.at(row).at(it - t.header.begin());
}

TEST(DevicesTableTest, ShowsDrainHealthItsReasonAndTheTimeOfTheCheck) {
  v1::ListDevicesResponse resp;
  v1::DeviceStatus* hot = resp.add_devices();
  hot->mutable_identity()->set_device_id("orin-0");
  hot->set_connected(true);
  hot->set_drained(true);
  hot->mutable_health()->set_healthy(false);
  hot->mutable_health()->set_reason("board temperature 101.0 C is at or "
                                    "above the limit of 95 C");
  hot->mutable_health()->set_checked_unix_ms(1'700'000'000'000);
  v1::DeviceStatus* fine = resp.add_devices();
  fine->mutable_identity()->set_device_id("orin-1");
  fine->mutable_health()->set_healthy(true);
  fine->mutable_health()->set_checked_unix_ms(1'700'000'060'000);
  v1::DeviceStatus* old = resp.add_devices();
  old->mutable_identity()->set_device_id("host-0");

  const Table t = DevicesTable(resp, absl::UTCTimeZone());
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(Cell(t, 0, "drained"), "yes");
  EXPECT_EQ(Cell(t, 0, "health"),
            "FAILING: board temperature 101.0 C is at or above the limit of "
            "95 C");
  EXPECT_EQ(Cell(t, 0, "checked"), "2023-11-14 22:13:20");
  EXPECT_EQ(Cell(t, 1, "drained"), "no");
  EXPECT_EQ(Cell(t, 1, "health"), "ok");
  EXPECT_EQ(Cell(t, 1, "checked"), "2023-11-14 22:14:20");
  EXPECT_EQ(Cell(t, 2, "health"), "-");
  EXPECT_EQ(Cell(t, 2, "checked"), "-");
  EXPECT_EQ(Cell(t, 2, "connected"), "no");
  EXPECT_EQ(Cell(t, 2, "disconnected"), "-");  // not recorded
  EXPECT_EQ(Cell(t, 0, "disconnected"), "-");  // connected
}

TEST(DevicesTableTest, ShowsWhenADeviceDisconnected) {
  v1::ListDevicesResponse resp;
  v1::DeviceStatus* gone = resp.add_devices();
  gone->mutable_identity()->set_device_id("nano-0");
  gone->set_last_seen_unix_ms(1'700'000'000'000);
  gone->set_disconnected_unix_ms(1'700'000'003'000);
  const Table t = DevicesTable(resp, absl::UTCTimeZone());
  EXPECT_EQ(Cell(t, 0, "last_seen"), "2023-11-14 22:13:20");
  EXPECT_EQ(Cell(t, 0, "disconnected"), "2023-11-14 22:13:23");
}

TEST(DevicesTableTest, ActionsAreDrainUndrainAndForget) {
  EXPECT_EQ(ParseDeviceAction("drain"), v1::DEVICE_ACTION_DRAIN);
  EXPECT_EQ(ParseDeviceAction("undrain"), v1::DEVICE_ACTION_UNDRAIN);
  EXPECT_EQ(ParseDeviceAction("forget"), v1::DEVICE_ACTION_FORGET);
  EXPECT_FALSE(ParseDeviceAction("remove").has_value());
}

}  // namespace
}  // namespace powersweep
