// Both sides killed (SIGKILL) while the controller's disk is full: the
// agents finished runs the controller could not commit (not acknowledged,
// so still in the agents' spools). After the disk has room again and both
// sides restart, every finished run must end done: a replayed RunFinished
// is stored, never thrown away. The database lives on a small tmpfs that
// the test fills; without root or mount(2) it is skipped.
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/integration/local_fleet.h"

namespace powersweep::testing {
namespace {

constexpr int kRuns = 12;

std::vector<std::string> Twin(int instance) {
  return {"--platform=twin", "--device_class=orin-agx",
          "--instance=" + std::to_string(instance), "--twin_time_scale=0.2",
          "--log_level=warning"};
}

// Writes 256 KiB blocks to `path` until the filesystem is full.
void Fill(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return;
  const std::string block(256 * 1024, 'x');
  while (std::fwrite(block.data(), 1, block.size(), f) == block.size() &&
         std::fflush(f) == 0) {
  }
  std::fclose(f);
}

class Tmpfs {
 public:
  explicit Tmpfs(const std::string& dir) : dir_(dir) {
    mounted_ = mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=32m") == 0;
    if (!mounted_) error_ = std::strerror(errno);
  }
  ~Tmpfs() {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

TEST(FullDiskKillTest, FinishedRunsEndDoneAfterBothSidesDieOnAFullDisk) {
  const std::string db_dir = MakeTempDir("powersweep-fulldisk");
  Tmpfs disk(db_dir);
  if (!disk.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs for the database (" << disk.error()
                 << "); needs root";
  }
  LocalFleetOptions options;
  options.db_dir = db_dir;
  LocalFleet fleet(options);
  ASSERT_TRUE(fleet.ok()) << fleet.Logs();
  fleet.StartAgent("orin-agx-twin-0", Twin(0));
  fleet.StartAgent("orin-agx-twin-1", Twin(1));
  std::string error;
  const int64_t sweep = fleet.Submit(
      OrinTwinSweep("it-full-disk", v1::TASK_INFER, kRuns, 20), &error);
  ASSERT_GT(sweep, 0) << error;
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).done() >= 2; }, 60))
      << fleet.Logs();

  const std::string filler = db_dir + "/filler";
  Fill(filler);
  // The agents go on finishing runs the controller cannot commit.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const v1::SweepStatus at_kill = fleet.GetSweep(sweep);
  fleet.StopController(SIGKILL);
  fleet.agent("orin-agx-twin-0")->Kill(SIGKILL);
  fleet.agent("orin-agx-twin-1")->Kill(SIGKILL);
  ASSERT_EQ(unlink(filler.c_str()), 0);

  const auto restarted = std::chrono::steady_clock::now();
  ASSERT_TRUE(fleet.RestartController()) << fleet.Logs();
  fleet.StartAgent("orin-agx-twin-0", Twin(0));
  fleet.StartAgent("orin-agx-twin-1", Twin(1));
  ASSERT_TRUE(LocalFleet::WaitFor(
      [&] { return fleet.GetSweep(sweep).finished(); }, 180))
      << fleet.Logs();
  const double s = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - restarted)
                       .count();
  const v1::SweepStatus end = fleet.GetSweep(sweep);
  // The disk really was full: the controller refused writes.
  const std::string log = ReadFile(fleet.dir() + "/controller.log");
  int refused = 0;
  for (size_t at = log.find("cannot "); at != std::string::npos;
       at = log.find("cannot ", at + 1)) {
    ++refused;
  }
  EXPECT_GT(refused, 0) << log;
  EXPECT_EQ(end.done(), kRuns) << fleet.Logs();
  EXPECT_EQ(end.failed(), 0) << fleet.Logs();
  std::printf(
      "disk full, then both sides killed with %d done and %d in flight: "
      "after the restart %d of %d runs done, %d failed, in %.2f s (the "
      "controller logged %d refused writes)\n",
      static_cast<int>(at_kill.done()), static_cast<int>(at_kill.active()),
      static_cast<int>(end.done()), kRuns, static_cast<int>(end.failed()), s,
      refused);
}

}  // namespace
}  // namespace powersweep::testing
