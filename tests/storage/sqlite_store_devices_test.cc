// SqliteStore: the device state of schema 11 on a file. A device registered
// under schema 10 reads as not drained, not forgotten and without health
// after the upgrade; the marks are plain columns of `devices` and survive
// reopening the file.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "storage/migrations.h"
#include "tests/storage/store_test_util.h"

namespace powersweep {
namespace {

// A file as schema 10 left it, with one registered device.
void WriteVersion10File(const std::string& path) {
  RawConnection raw(path, /*read_only=*/false);
  ASSERT_TRUE(raw.Exec("CREATE TABLE schema_migrations (version INTEGER "
                       "PRIMARY KEY NOT NULL, applied_unix_ms INTEGER NOT "
                       "NULL)")
                  .ok());
  for (int v = 1; v <= 10; ++v) {
    ASSERT_TRUE(raw.Exec(Migrations()[v - 1]).ok()) << v;
    ASSERT_TRUE(raw.Exec(absl::StrCat(
                             "INSERT INTO schema_migrations VALUES (", v, ", 0)"))
                    .ok());
  }
  ASSERT_TRUE(raw.Exec("INSERT INTO devices(device_id, device_class, platform,"
                       " identity_json, capabilities_json, first_seen_unix_ms,"
                       " last_seen_unix_ms) VALUES ('orin-0', 'orin-agx',"
                       " 'twin', '{\"device_id\":\"orin-0\"}', '{}', 5, 7)")
                  .ok());
}

TEST(SqliteStoreDevicesTest, ADeviceOfSchema10HasNoStateAfterTheUpgrade) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  WriteVersion10File(path);
  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  auto devices = store->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 1u);
  const v1::DeviceStatus& d = (*devices)[0];
  EXPECT_EQ(d.identity().device_id(), "orin-0");
  EXPECT_EQ(d.last_seen_unix_ms(), 7);
  EXPECT_FALSE(d.drained());
  EXPECT_FALSE(d.forgotten());
  EXPECT_FALSE(d.has_health());
}

TEST(SqliteStoreDevicesTest, MarksAndHealthAreColumnsThatSurviveReopening) {
  TempDir dir;
  const std::string path = dir.path() + "/store.db";
  {
    auto store = OpenStore(path);
    ASSERT_NE(store, nullptr);
    v1::DeviceIdentity identity;
    identity.set_device_id("orin-0");
    ASSERT_TRUE(store->UpsertDevice(identity, {}, absl::FromUnixMillis(9)).ok());
    ASSERT_TRUE(store->SetDeviceDrained("orin-0", true).ok());
    ASSERT_TRUE(store->SetDeviceForgotten("orin-0", true).ok());
    v1::DeviceHealth health;
    health.set_reason("no power reading");
    health.set_checked_unix_ms(1234);
    ASSERT_TRUE(store->SaveDeviceHealth("orin-0", health).ok());
  }
  RawConnection raw(path);
  EXPECT_EQ(raw.Int("SELECT drained FROM devices"), 1);
  EXPECT_EQ(raw.Int("SELECT forgotten FROM devices"), 1);
  EXPECT_EQ(raw.Int("SELECT healthy FROM devices"), 0);
  EXPECT_EQ(raw.Text("SELECT health_reason FROM devices"), "no power reading");
  EXPECT_EQ(raw.Int("SELECT health_checked_unix_ms FROM devices"), 1234);

  auto store = OpenStore(path);
  ASSERT_NE(store, nullptr);
  auto devices = store->ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_TRUE((*devices)[0].drained());
  EXPECT_TRUE((*devices)[0].forgotten());
  EXPECT_EQ((*devices)[0].health().reason(), "no power reading");
}

}  // namespace
}  // namespace powersweep
