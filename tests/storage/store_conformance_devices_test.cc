// Store conformance: the state of devices (schema 11). Operators drain and
// forget devices, agents report their health; ListDevices returns all of
// it, forgotten devices included (with the mark), and registering again
// (UpsertDevice) clears only the forgotten mark. Unknown ids are NotFound
// and create nothing.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/storage/store_conformance.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

template <typename Factory>
class StoreDevicesTest : public StoreConformanceTest<Factory> {
 protected:
  void Upsert(const std::string& id) {
    v1::DeviceIdentity identity;
    identity.set_device_id(id);
    identity.set_device_class("orin-agx");
    ASSERT_TRUE(this->store_
                    ->UpsertDevice(identity, v1::DeviceCapabilities(),
                                   this->clock_.Now())
                    .ok());
  }
  // The device as ListDevices returns it (a default one if missing).
  v1::DeviceStatus Device(const std::string& id) {
    auto devices = this->store_->ListDevices();
    EXPECT_TRUE(devices.ok()) << devices.status();
    if (devices.ok()) {
      for (const v1::DeviceStatus& d : *devices) {
        if (d.identity().device_id() == id) return d;
      }
    }
    ADD_FAILURE() << "device " << id << " is not listed";
    return v1::DeviceStatus();
  }
};
TYPED_TEST_SUITE(StoreDevicesTest, StoreImplementations,
                 StoreImplementationNames);

v1::DeviceHealth Health(bool healthy, const std::string& reason,
                        int64_t at_ms) {
  v1::DeviceHealth h;
  h.set_healthy(healthy);
  h.set_reason(reason);
  h.set_checked_unix_ms(at_ms);
  return h;
}

TYPED_TEST(StoreDevicesTest, ANewDeviceIsNotDrainedNorForgottenAndHasNoHealth) {
  this->Upsert("orin-0");
  const v1::DeviceStatus d = this->Device("orin-0");
  EXPECT_FALSE(d.drained());
  EXPECT_FALSE(d.forgotten());
  EXPECT_FALSE(d.has_health());
}

// `devices` shows when a device's agent went and when it was last heard,
// not the time it registered; registering again clears the mark.
TYPED_TEST(StoreDevicesTest, ADisconnectionIsStoredUntilTheDeviceRegisters) {
  this->Upsert("orin-0");
  const int64_t registered = this->Device("orin-0").last_seen_unix_ms();
  EXPECT_EQ(this->Device("orin-0").disconnected_unix_ms(), 0);
  const absl::Time heard = absl::FromUnixMillis(registered + 90'000);
  const absl::Time gone = absl::FromUnixMillis(registered + 95'000);
  ASSERT_TRUE(this->store_->SaveDeviceDisconnected("orin-0", heard, gone).ok());
  EXPECT_EQ(this->Device("orin-0").last_seen_unix_ms(), registered + 90'000);
  EXPECT_EQ(this->Device("orin-0").disconnected_unix_ms(), registered + 95'000);
  this->Upsert("orin-0");
  EXPECT_EQ(this->Device("orin-0").disconnected_unix_ms(), 0);
  EXPECT_EQ(this->store_->SaveDeviceDisconnected("nano-9", heard, gone).code(),
            absl::StatusCode::kNotFound);
}

TYPED_TEST(StoreDevicesTest, DrainingIsStoredPerDeviceAndUndone) {
  this->Upsert("orin-0");
  this->Upsert("orin-1");
  ASSERT_TRUE(this->store_->SetDeviceDrained("orin-1", true).ok());
  EXPECT_FALSE(this->Device("orin-0").drained());
  EXPECT_TRUE(this->Device("orin-1").drained());
  // Draining twice is no error.
  ASSERT_TRUE(this->store_->SetDeviceDrained("orin-1", true).ok());
  EXPECT_TRUE(this->Device("orin-1").drained());
  ASSERT_TRUE(this->store_->SetDeviceDrained("orin-1", false).ok());
  EXPECT_FALSE(this->Device("orin-1").drained());
}

TYPED_TEST(StoreDevicesTest, AForgottenDeviceIsListedWithTheMarkUntilItRegisters) {
  this->Upsert("orin-0");
  ASSERT_TRUE(this->store_->SetDeviceDrained("orin-0", true).ok());
  ASSERT_TRUE(this->store_
                  ->SaveDeviceHealth("orin-0", Health(false, "too hot", 1000))
                  .ok());
  ASSERT_TRUE(this->store_->SetDeviceForgotten("orin-0", true).ok());
  EXPECT_TRUE(this->Device("orin-0").forgotten());

  this->clock_.Advance(absl::Minutes(1));
  this->Upsert("orin-0");
  const v1::DeviceStatus d = this->Device("orin-0");
  EXPECT_FALSE(d.forgotten());
  // Only the forgotten mark goes: drained and health are kept.
  EXPECT_TRUE(d.drained());
  EXPECT_EQ(d.health().reason(), "too hot");
  EXPECT_EQ(d.last_seen_unix_ms(), absl::ToUnixMillis(this->clock_.Now()));

  ASSERT_TRUE(this->store_->SetDeviceForgotten("orin-0", true).ok());
  ASSERT_TRUE(this->store_->SetDeviceForgotten("orin-0", false).ok());
  EXPECT_FALSE(this->Device("orin-0").forgotten());
}

TYPED_TEST(StoreDevicesTest, ForgettingADeviceKeepsItsRuns) {
  this->Upsert("orin-0");
  std::vector<int64_t> ids = this->CreateRuns(1);
  this->Start(ids[0], "orin-0");
  ASSERT_TRUE(this->store_->SetDeviceForgotten("orin-0", true).ok());
  const v1::RunStatus run = this->Run(ids[0]);
  EXPECT_EQ(run.device_id(), "orin-0");
  EXPECT_EQ(run.state(), kRunning);
}

TYPED_TEST(StoreDevicesTest, TheLatestHealthCheckReplacesTheOneBefore) {
  this->Upsert("orin-0");
  ASSERT_TRUE(this->store_
                  ->SaveDeviceHealth(
                      "orin-0",
                      Health(false, "board temperature 101.0 C", 1'700'000'000'123))
                  .ok());
  v1::DeviceHealth h = this->Device("orin-0").health();
  EXPECT_FALSE(h.healthy());
  EXPECT_EQ(h.reason(), "board temperature 101.0 C");
  EXPECT_EQ(h.checked_unix_ms(), 1'700'000'000'123);

  ASSERT_TRUE(
      this->store_->SaveDeviceHealth("orin-0", Health(true, "", 1'700'000'005'000))
          .ok());
  h = this->Device("orin-0").health();
  EXPECT_TRUE(h.healthy());
  EXPECT_EQ(h.reason(), "");
  EXPECT_EQ(h.checked_unix_ms(), 1'700'000'005'000);
}

TYPED_TEST(StoreDevicesTest, UnknownDevicesAreNotFoundNamingTheIdAndNotCreated) {
  this->Upsert("orin-0");
  Store& store = *this->store_;
  for (const absl::Status& st :
       {store.SetDeviceDrained("nx-9", true),
        store.SetDeviceForgotten("nx-9", true),
        store.SaveDeviceHealth("nx-9", Health(true, "", 1))}) {
    EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
    EXPECT_THAT(st.message(), HasSubstr("nx-9"));
  }
  auto devices = store.ListDevices();
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].identity().device_id(), "orin-0");
}

}  // namespace
}  // namespace powersweep
