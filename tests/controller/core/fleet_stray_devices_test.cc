// Registrations under made-up ids (plaintext: nobody proves who they are)
// must not fill the fleet for good: a device registered without a
// certificate that never started a run does not count against
// max_devices, makes room for a new board once it has disconnected, and
// is deleted from the store unconfirmed_device_ttl after it left.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/controller/core/fleet_test_util.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using FleetStrayDevicesTest = FleetTest;

std::vector<std::string> Listed(Fleet* fleet) {
  std::vector<std::string> ids;
  absl::StatusOr<std::vector<v1::DeviceStatus>> devices = fleet->ListDevices();
  EXPECT_TRUE(devices.ok()) << devices.status();
  if (!devices.ok()) return ids;
  for (const v1::DeviceStatus& d : *devices) {
    ids.push_back(d.identity().device_id());
  }
  return ids;
}

TEST_F(FleetStrayDevicesTest, StrayIdsDoNotKeepARealBoardOut) {
  FleetOptions options;
  options.max_devices = 2;
  RestartController(options);
  // Two made-up ids register and go.
  for (const char* id : {"junk-0", "junk-1"}) {
    auto conn = Connect(id);
    fleet_->Disconnect(id, conn.get());
  }
  // A real board is let in (a stray one makes room), and runs.
  auto runs = AddSweep({HostRun()});
  absl::Status st;
  auto board = ConnectWith(RegisterOf("board-0"), &st);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_THAT(board->AssignedRunIds(), ElementsAre(runs[0]));
  SendStarted("board-0", runs[0]);
  EXPECT_THAT(Listed(fleet_.get()), ElementsAre("board-0", "junk-1"));
}

TEST_F(FleetStrayDevicesTest, StrayIdsExpireButDevicesThatRanStay) {
  auto runs = AddSweep({HostRun()});
  auto board = Connect("board-0");
  SendStarted("board-0", runs[0]);
  SendBatch("board-0", runs[0], 1);
  SendFinished("board-0", runs[0], 1);
  auto stray = Connect("junk-0");
  fleet_->Disconnect("junk-0", stray.get());
  fleet_->Disconnect("board-0", board.get());
  EXPECT_THAT(Listed(fleet_.get()), ElementsAre("board-0", "junk-0"));

  clock_.Advance(absl::Minutes(11));
  fleet_->CheckLiveness();
  EXPECT_THAT(Listed(fleet_.get()), ElementsAre("board-0"));
}

TEST_F(FleetStrayDevicesTest, ConnectedStrayIdsAreCappedAtMaxDevices) {
  FleetOptions options;
  options.max_devices = 2;
  RestartController(options);
  Connect("junk-0");
  Connect("junk-1");
  absl::Status st;
  ConnectWith(RegisterOf("junk-2"), &st);
  EXPECT_EQ(st.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("registered without a certificate"));
  // A board with a certificate is not kept out by them.
  ConnectWith(RegisterOf("board-0"), &st, /*identity_verified=*/true);
  EXPECT_TRUE(st.ok()) << st;
}

TEST_F(FleetStrayDevicesTest, AfterARestartUnusedDevicesAreStillStrays) {
  FleetOptions options;
  options.max_devices = 1;
  RestartController(options);
  auto stray = Connect("junk-0");
  fleet_->Disconnect("junk-0", stray.get());
  RestartController(options);
  absl::Status st;
  ConnectWith(RegisterOf("board-0"), &st);
  EXPECT_TRUE(st.ok()) << st;
}

}  // namespace
}  // namespace powersweep
