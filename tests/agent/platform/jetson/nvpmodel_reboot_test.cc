// --allow_reboot on a Jetson: `nvpmodel -m ID` with "YES" for its reboot
// prompt, a marker that survives the boot, and no second reboot for a mode
// the first one did not bring.
#include "agent/platform/jetson/nvpmodel_reboot.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/fake_sysfs_io.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class NvpmodelRebootTest : public ::testing::Test {
 protected:
  NvpmodelRebootTest() {
    dir_ = ::testing::TempDir() + "/nvpmodel-reboot-" +
           std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    SetBootId("boot-1");
    FakeNvpmodel(0);
  }
  void SetBootId(const std::string& id) {
    std::ofstream(dir_ + "/boot_id") << id << "\n";
  }
  // Records its arguments and what it read from stdin, exits `code`.
  void FakeNvpmodel(int code) {
    const std::string path = dir_ + "/nvpmodel";
    std::ofstream(path) << "#!/bin/sh\necho \"$@\" > " << dir_
                        << "/args\ncat > " << dir_ << "/stdin\nexit " << code
                        << "\n";
    chmod(path.c_str(), 0755);
  }
  NvpmodelRebootOptions Options() const {
    return {dir_, dir_ + "/nvpmodel", dir_ + "/boot_id"};
  }
  std::string dir_;
  const RebootTarget target_{"90W", 2, "needs mask 15873"};
};

TEST_F(NvpmodelRebootTest, AnswersTheRebootPromptAndLeavesAMarker) {
  NvpmodelReboot reboot(Options());
  EXPECT_THAT(reboot.Blocked(target_), IsEmpty());
  ASSERT_TRUE(reboot.Start(target_).ok());
  EXPECT_EQ(Read(dir_ + "/args"), "-m 2\n");
  EXPECT_EQ(Read(dir_ + "/stdin"), "YES\n");
  const std::string marker = Read(dir_ + "/reboot.json");
  EXPECT_THAT(marker, HasSubstr("\"preset\": \"90W\""));
  EXPECT_THAT(marker, HasSubstr("\"boot_id\": \"boot-1\""));
}

// After the boot the agent starts again: the marker says it rebooted for
// 90W, so a 90W run that still needs a reboot is not rebooted for again.
TEST_F(NvpmodelRebootTest, AfterTheBootTheSameModeIsNotRebootedForAgain) {
  ASSERT_TRUE(NvpmodelReboot(Options()).Start(target_).ok());
  SetBootId("boot-2");
  NvpmodelReboot after(Options());
  EXPECT_THAT(after.previous(), HasSubstr("rebooted for 90W (nvpmodel -m 2)"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/reboot.json"));
  EXPECT_THAT(after.Blocked(target_), HasSubstr("not rebooting again"));
  EXPECT_THAT(after.Blocked(RebootTarget{"70W", 3, ""}), IsEmpty());
}

TEST_F(NvpmodelRebootTest, ABoardThatDidNotGoDownIsSaidSo) {
  ASSERT_TRUE(NvpmodelReboot(Options()).Start(target_).ok());
  NvpmodelReboot same_boot(Options());
  EXPECT_THAT(same_boot.previous(), HasSubstr("did not go down"));
  EXPECT_FALSE(same_boot.Blocked(target_).empty());
}

TEST_F(NvpmodelRebootTest, AFailingNvpmodelIsAnErrorAndBlocksTheMode) {
  FakeNvpmodel(3);
  NvpmodelReboot reboot(Options());
  absl::Status st = reboot.Start(target_);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(st.message()), HasSubstr("-m 2 failed (exit code 3)"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/reboot.json"));
  EXPECT_THAT(reboot.Blocked(target_), HasSubstr("tried to reboot for 90W"));
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
