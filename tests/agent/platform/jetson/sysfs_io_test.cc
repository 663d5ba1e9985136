// RealSysfsIo: root handling and errors that name the file.
#include "agent/platform/jetson/sysfs_io.h"

#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/agent/platform/jetson/fake_sysfs_io.h"

namespace powersweep {
namespace jetson {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kOnline[] = "/sys/devices/system/cpu/cpu1/online";

TEST(SysfsIoTest, PathsAreTakenUnderTheRoot) {
  const std::string root = CopyFixture("nano-jp4");
  RealSysfsIo io(root + "/");
  EXPECT_EQ(io.Resolve(kOnline), root + kOnline);
  ASSERT_TRUE(io.Write(kOnline, "0").ok());
  EXPECT_EQ(FileText(root, kOnline), "0");
  EXPECT_EQ(*ReadInt(io, kOnline), 0);
  EXPECT_EQ(RealSysfsIo("/").Resolve(kOnline), kOnline);
}

TEST(SysfsIoTest, MissingKnobIsFailedPreconditionNamingTheFile) {
  RealSysfsIo io(CopyFixture("nano-jp4"));
  const std::string rate = "/sys/kernel/debug/bpmp/debug/clk/emc/rate";
  absl::Status s = io.Write(rate, "204000000");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr(rate));
  EXPECT_THAT(std::string(s.message()), HasSubstr("missing"));
  EXPECT_EQ(io.CheckWritable(rate).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(SysfsIoTest, NotRootIsFailedPreconditionNamingTheFile) {
  const std::string root = CopyFixture("nano-jp4");
  RealSysfsIo io(root);
  // Drop privileges in a child process (the test may run as root).
  EXPECT_EXIT(
      {
        if (geteuid() == 0 && setuid(65534) != 0) _exit(3);
        absl::Status w = io.Write(kOnline, "0");
        absl::Status c = io.CheckWritable(kOnline);
        const bool named =
            std::string(w.message()).find(root + kOnline) != std::string::npos &&
            std::string(w.message()).find("not writable") != std::string::npos;
        _exit(w.code() == absl::StatusCode::kFailedPrecondition &&
                      c.code() == absl::StatusCode::kFailedPrecondition && named
                  ? 0
                  : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(FileText(root, kOnline), "1");
}

TEST(SysfsIoTest, ParsesCpuListsAndFrequencyTables) {
  EXPECT_THAT(*ParseIntList("0 1 2 3\n"), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(*ParseIntList("0-2,8"), ElementsAre(0, 1, 2, 8));
  EXPECT_THAT(*ParseIntList("115200 192000 \n"), ElementsAre(115200, 192000));
  EXPECT_FALSE(ParseIntList("12x").ok());
}

TEST(SysfsIoTest, CleanTextDropsDeviceTreeNuls) {
  EXPECT_EQ(CleanText(std::string("Jetson-AGX\0", 11)), "Jetson-AGX");
}

}  // namespace
}  // namespace jetson
}  // namespace powersweep
