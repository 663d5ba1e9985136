// The agent's state dir: defaults, creation 0700, refusal of a dir someone
// else could have prepared, files that never follow symlinks.
#include "agent/util/state_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/state_dir_test-" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(DefaultStateDir, RootUsesVarLibOthersTheirStateHome) {
  EXPECT_EQ(DefaultStateDir("orin-0", 0, "/x", "/root"),
            "/var/lib/powersweep-agent/orin-0");
  EXPECT_EQ(DefaultStateDir("orin-0", 1000, "/home/u/.state", "/home/u"),
            "/home/u/.state/powersweep-agent/orin-0");
  EXPECT_EQ(DefaultStateDir("orin-0", 1000, nullptr, "/home/u"),
            "/home/u/.local/state/powersweep-agent/orin-0");
  EXPECT_EQ(DefaultStateDir("orin-0", 1000, "", "/home/u"),
            "/home/u/.local/state/powersweep-agent/orin-0");
  // Never under /tmp, and the id cannot leave the directory.
  EXPECT_EQ(DefaultStateDir("../../etc", 0, nullptr, nullptr),
            "/var/lib/powersweep-agent/.._.._etc");
  EXPECT_EQ(DefaultStateDir("..", 0, nullptr, nullptr),
            "/var/lib/powersweep-agent/_");
}

TEST(PrepareStateDir, CreatesMissingDirectoriesPrivate) {
  const std::string base = FreshDir("create");
  const std::string dir = base + "/a/b";
  ASSERT_TRUE(PrepareStateDir(dir, "--work_dir").ok());
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((base + "/a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(PrepareStateDir(dir, "--work_dir").ok());  // existing, ours
}

TEST(PrepareStateDir, RefusesASymlinkNamingTheFlag) {
  const std::string base = FreshDir("symlink");
  ASSERT_TRUE(PrepareStateDir(base + "/real", "--work_dir").ok());
  std::filesystem::create_directory_symlink(base + "/real", base + "/link");
  absl::Status s = PrepareStateDir(base + "/link", "--work_dir");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("--work_dir: "));
  EXPECT_THAT(std::string(s.message()), HasSubstr("is a symlink"));
}

TEST(PrepareStateDir, RefusesWritableByOthersAndNotADirectory) {
  const std::string base = FreshDir("modes");
  ASSERT_TRUE(PrepareStateDir(base, "--work_dir").ok());
  ASSERT_EQ(chmod(base.c_str(), 0777), 0);
  EXPECT_THAT(std::string(PrepareStateDir(base, "--work_dir").message()),
              HasSubstr("writable by its group or by others"));
  ASSERT_EQ(chmod(base.c_str(), 0720), 0);
  EXPECT_FALSE(PrepareStateDir(base, "--work_dir").ok());
  ASSERT_EQ(chmod(base.c_str(), 0700), 0);
  std::ofstream(base + "/file") << "x";
  EXPECT_THAT(std::string(PrepareStateDir(base + "/file", "--work_dir").message()),
              HasSubstr("is not a directory"));
}

TEST(PrepareStateDir, RefusesADirectoryOfAnotherUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a dir away";
  const std::string base = FreshDir("owner");
  ASSERT_TRUE(PrepareStateDir(base, "--work_dir").ok());
  ASSERT_EQ(chown(base.c_str(), 65534, 65534), 0);
  EXPECT_THAT(std::string(PrepareStateDir(base, "--work_dir").message()),
              HasSubstr("not owned by the user the agent runs as"));
}

TEST(StateFile, WritesPrivatelyAndNeverThroughASymlink) {
  const std::string base = FreshDir("files");
  ASSERT_TRUE(PrepareStateDir(base, "--work_dir").ok());
  const std::string outside = FreshDir("files-outside");
  std::ofstream(outside) << "keep";

  // A planted symlink as the temporary file is replaced, not followed.
  std::filesystem::create_symlink(outside, base + "/state.json.tmp");
  ASSERT_TRUE(WriteStateFile(base + "/state.json", "{}").ok());
  EXPECT_EQ(Slurp(outside), "keep");
  EXPECT_EQ(Slurp(base + "/state.json"), "{}");
  struct stat st {};
  ASSERT_EQ(stat((base + "/state.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  // A symlink as the file itself: reading and opening refuse it.
  std::filesystem::create_symlink(outside, base + "/link.json");
  absl::StatusOr<std::optional<std::string>> read =
      ReadStateFile(base + "/link.json");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("symlink"));
  EXPECT_FALSE(OpenStateFile(base + "/link.json", O_WRONLY | O_APPEND).ok());
  EXPECT_EQ(Slurp(outside), "keep");

  absl::StatusOr<std::optional<std::string>> missing =
      ReadStateFile(base + "/none.json");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

}  // namespace
}  // namespace powersweep
