// Runs of modes whose GPU power gating differs are queued in one group per
// mask, so a board reboots once per group, not once per run.
#include "controller/sweep/gating_order.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::RunSpec MakeRun(const std::string& cls, const std::string& preset, int rep) {
  v1::RunSpec r;
  r.set_device_class(cls);
  r.mutable_power_mode()->set_preset(preset);
  r.set_repetition(rep);
  return r;
}

std::vector<std::string> Order(const std::vector<v1::RunSpec>& runs) {
  std::vector<std::string> out;
  for (const v1::RunSpec& r : runs) {
    out.push_back(r.power_mode().preset() + "/" +
                  std::to_string(r.repetition()));
  }
  return out;
}

TEST(GatingOrderTest, ThorModesThatNeedARebootRunAfterTheOthers) {
  // Expansion order: repetition outermost, modes inside.
  std::vector<v1::RunSpec> runs;
  for (int rep = 0; rep < 2; ++rep) {
    for (const char* mode : {"MAXN", "90W", "120W", "70W"}) {
      runs.push_back(MakeRun("thor", mode, rep));
    }
  }
  const std::string note =
      GroupRunsByGpuGating(&runs, PowerCatalog::Default());
  // MAXN and 120W (mask 64) first, repetitions in order; then 90W and 70W
  // (mask 15873): one reboot per board, not one per run.
  EXPECT_THAT(Order(runs),
              ElementsAre("MAXN/0", "120W/0", "MAXN/1", "120W/1", "90W/0",
                          "70W/0", "90W/1", "70W/1"));
  EXPECT_THAT(note, HasSubstr("4 runs"));
  EXPECT_THAT(note, HasSubstr("thor 70W, thor 90W"));
}

TEST(GatingOrderTest, SweepsWithoutMasksKeepTheirOrder) {
  std::vector<v1::RunSpec> runs = {MakeRun("orin-agx", "MODE_15W", 0),
                                   MakeRun("orin-agx", "MAXN", 0),
                                   MakeRun("orin-nx", "25W", 0),
                                   MakeRun("orin-nx", "", 0)};
  EXPECT_EQ(GroupRunsByGpuGating(&runs, PowerCatalog::Default()), "");
  EXPECT_THAT(Order(runs),
              ElementsAre("MODE_15W/0", "MAXN/0", "25W/0", "/0"));
}

TEST(GatingOrderTest, CustomModesStayInTheFirstGroup) {
  std::vector<v1::RunSpec> runs = {MakeRun("orin-nx", "10W", 0),
                                   MakeRun("orin-nx", "", 0),
                                   MakeRun("orin-nx", "40W", 0),
                                   MakeRun("orin-nx", "15W", 0)};
  GroupRunsByGpuGating(&runs, PowerCatalog::Default());
  // 10W's mask (252) comes first, so it is the first group with 15W.
  EXPECT_THAT(Order(runs), ElementsAre("10W/0", "/0", "15W/0", "40W/0"));
}

}  // namespace
}  // namespace powersweep
