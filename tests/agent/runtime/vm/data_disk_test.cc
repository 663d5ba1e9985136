// VmDataDisks with the real mkfs.ext4 (e2fsprogs): a data set's image is
// made once, reused while the data set is unchanged, remade when a file
// changes, and a failing mkfs names the data set. The image's content is
// checked with debugfs (e2fsprogs), without mounting it.
#include "agent/runtime/vm/data_disk.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/runtime/docker/subprocess.h"
#include "agent/runtime/vm/vm_script.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Dir(const std::string& name) {
  const std::string d =
      (fs::path(testing::TempDir()) / "data_disk_test" / name)
          .lexically_normal()
          .string();
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// The image's listing of `path` (debugfs -R "ls -l PATH").
std::string Listing(const std::string& image, const std::string& path) {
  absl::StatusOr<CommandResult> r = RunCommand(
      {"/usr/sbin/debugfs", "-R", absl::StrCat("ls -l ", path), image}, 30);
  return r.ok() ? r->out : std::string(r.status().message());
}

TEST(VmDataDisksTest, AnImageIsMadeOnceAndRemadeWhenTheDataSetChanges) {
  const std::string d = Dir("remade");
  const std::string data = d + "/fashion-mnist";
  fs::create_directories(data + "/sub");
  std::ofstream(data + "/train.idx") << std::string(100000, 'x');
  std::ofstream(data + "/sub/labels.idx") << "labels";
  VmDataDisks disks(d + "/vm-data");
  absl::StatusOr<std::string> disk = disks.DiskOf(data);
  ASSERT_TRUE(disk.ok()) << disk.status();
  EXPECT_THAT(*disk, HasSubstr(d + "/vm-data/fashion-mnist-"));
  EXPECT_THAT(Listing(*disk, "/"), HasSubstr("train.idx"));
  EXPECT_THAT(Listing(*disk, "/sub"), HasSubstr("labels.idx"));
  const auto made = fs::last_write_time(*disk);
  // Unchanged: the same image, not made again.
  absl::StatusOr<std::string> again = disks.DiskOf(data);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *disk);
  EXPECT_EQ(fs::last_write_time(*disk), made);
  // A new file: made again, with it.
  std::ofstream(data + "/test.idx") << "more";
  absl::StatusOr<std::string> changed = disks.DiskOf(data);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(*changed, *disk);
  EXPECT_THAT(Listing(*disk, "/"), HasSubstr("test.idx"));
}

TEST(VmDataDisksTest, ErrorsNameTheDataSet) {
  const std::string d = Dir("errors");
  VmDataDisks disks(d + "/vm-data");
  absl::StatusOr<std::string> missing = disks.DiskOf(d + "/no-such-set");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such-set"));
  fs::create_directories(d + "/set");
  VmDataDisks broken(d + "/vm-data", "/bin/false");
  absl::StatusOr<std::string> failed = broken.DiskOf(d + "/set");
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("cannot make the VM data disk of " + d + "/set"));
  EXPECT_TRUE(fs::is_empty(d + "/vm-data"));  // nothing half-made
}

TEST(VmDataDisksTest, TheGuestScriptMountsTheDiskOverTheDataSetsPath) {
  const std::string script =
      VmRunScript({"/bin/true"}, "/", {}, "/usr/share/datasets/fashion-mnist");
  EXPECT_THAT(script, HasSubstr("mount -t ext4 -o ro /dev/vda "
                                "'/usr/share/datasets/fashion-mnist' || "));
  EXPECT_THAT(VmRunScript({"/bin/true"}, "/", {}),
              ::testing::Not(HasSubstr("/dev/vda")));
}

}  // namespace
}  // namespace powersweep
