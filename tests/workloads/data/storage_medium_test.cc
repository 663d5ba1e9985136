// DescribeStorage / DescribeBlockDevice: the medium behind a data set path,
// on fake sysfs trees laid out like a Jetson's (eMMC, SD card, NVMe SSD, a
// USB hard disk) and on this machine's real root.
#include "workloads/data/storage_medium.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;

class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("storage_medium_test_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "sys/dev/block");
  }
  void TearDown() override { fs::remove_all(root_); }

  // A disk DISK under `devpath` (relative to /sys/devices) with one
  // partition PART, registered as MAJ:MIN (disk) and MAJ:MIN+1 (partition).
  void AddDisk(const std::string& devpath, const std::string& disk,
               const std::string& part, int maj, int min, int rotational) {
    const fs::path d = root_ / "sys/devices" / devpath / "block" / disk;
    fs::create_directories(d / "queue");
    fs::create_directories(d / part);
    std::ofstream(d / "queue/rotational") << rotational << "\n";
    std::ofstream(d / part / "partition") << "1\n";
    const fs::path links = root_ / "sys/dev/block";
    fs::create_symlink(
        fs::relative(d, links),
        links / (std::to_string(maj) + ":" + std::to_string(min)));
    fs::create_symlink(
        fs::relative(d / part, links),
        links / (std::to_string(maj) + ":" + std::to_string(min + 1)));
  }

  fs::path root_;
};

TEST_F(FakeSysfs, EmmcPartitionOfAJetsonIsNonRotational) {
  AddDisk("platform/3460000.sdhci/mmc_host/mmc0/mmc0:0001", "mmcblk0",
          "mmcblk0p1", 179, 0, 0);
  v1::StorageMedium m;
  DescribeBlockDevice(179, 1, root_.string(), &m);
  EXPECT_EQ(m.device(), "mmcblk0p1");
  EXPECT_EQ(m.disk(), "mmcblk0");
  EXPECT_EQ(m.kind(), "non-rotational");
}

TEST_F(FakeSysfs, NvmeWholeDiskAndUsbHardDisk) {
  AddDisk("pci0000:00/0000:00:01.0/nvme/nvme0", "nvme0n1", "nvme0n1p1", 259,
          0, 0);
  AddDisk("platform/usb/1-1/host0/target0:0:0/0:0:0:0", "sda", "sda1", 8, 0,
          1);
  v1::StorageMedium nvme;
  DescribeBlockDevice(259, 0, root_.string(), &nvme);
  EXPECT_EQ(nvme.device(), "nvme0n1");
  EXPECT_EQ(nvme.disk(), "nvme0n1");
  EXPECT_EQ(nvme.kind(), "non-rotational");
  v1::StorageMedium hdd;
  DescribeBlockDevice(8, 1, root_.string(), &hdd);
  EXPECT_EQ(hdd.device(), "sda1");
  EXPECT_EQ(hdd.disk(), "sda");
  EXPECT_EQ(hdd.kind(), "rotational");
}

TEST_F(FakeSysfs, UnknownDeviceLeavesTheMediumAsItWas) {
  v1::StorageMedium m;
  m.set_kind("unknown");
  DescribeBlockDevice(8, 17, root_.string(), &m);
  EXPECT_EQ(m.device(), "");
  EXPECT_EQ(m.kind(), "unknown");
}

TEST(DescribeStorage, RealRootNamesTheFileSystemOfThisDirectory) {
  auto m = DescribeStorage(fs::current_path().string());
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->fs_type().empty());
  EXPECT_FALSE(m->device().empty());
  EXPECT_FALSE(m->mount_point().empty());
  EXPECT_THAT(m->kind(), AnyOf("rotational", "non-rotational", "unknown"));
}

TEST(DescribeStorage, ProcIsADeviceLessFileSystem) {
  auto m = DescribeStorage("/proc/self");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->fs_type(), "proc");
  EXPECT_EQ(m->mount_point(), "/proc");
  EXPECT_EQ(m->kind(), "unknown");
}

TEST(DescribeStorage, MissingPathIsNotFoundNamingIt) {
  auto m = DescribeStorage("/no/such/data/set");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(m.status().message(), HasSubstr("/no/such/data/set"));
}

}  // namespace
}  // namespace powersweep
