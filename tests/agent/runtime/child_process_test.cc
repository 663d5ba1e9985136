#include "agent/runtime/child_process.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

SpawnOptions Sh(const std::string& script) {
  SpawnOptions spawn;
  spawn.argv = {"/bin/sh", "-c", script};
  return spawn;
}

TEST(ChildSupervisorTest, ReportsTheExitCodeAndReaps) {
  RealClock clock;
  ChildSupervisor child(&clock);
  ASSERT_TRUE(child.Start(Sh("exit 7"), {}).ok());
  const pid_t pid = child.pid();
  ChildExit exit = child.Wait();
  EXPECT_TRUE(exit.exited());
  EXPECT_EQ(exit.exit_code(), 7);
  EXPECT_FALSE(exit.cancelled);
  EXPECT_FALSE(exit.timed_out);
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ChildSupervisorTest, TimeoutEscalatesFromSigtermToSigkill) {
  RealClock clock;
  ChildSupervisor child(&clock);
  SupervisorOptions options;
  options.timeout_s = 0.2;
  options.grace_s = 0.2;
  ASSERT_TRUE(child.Start(Sh("trap '' TERM; sleep 30"), options).ok());
  const absl::Time t0 = absl::Now();
  ChildExit exit = child.Wait();
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
  EXPECT_TRUE(exit.timed_out);
  EXPECT_EQ(exit.term_signal(), SIGKILL);
}

TEST(ChildSupervisorTest, CancelBeforeStartRefusesToStart) {
  RealClock clock;
  ChildSupervisor child(&clock);
  child.Cancel("early");
  absl::Status st = child.Start(Sh("exit 0"), {});
  EXPECT_TRUE(absl::IsCancelled(st)) << st;
  EXPECT_EQ(child.pid(), 0);
}

// A Cancel from another thread at any moment around Start: the child never
// runs to completion (its 30 s sleep), whether Start refused or the
// process was stopped as soon as it existed.
TEST(ChildSupervisorTest, ACancelRacingStartIsHonoured) {
  RealClock clock;
  for (int i = 0; i < 40; ++i) {
    ChildSupervisor child(&clock);
    std::atomic<bool> go{false};
    std::thread canceller([&] {
      while (!go) {
      }
      for (int spin = 0; spin < (i % 8) * 200; ++spin) {
        asm volatile("" ::: "memory");
      }
      child.Cancel("raced");
    });
    go = true;
    const absl::Time t0 = absl::Now();
    absl::Status st = child.Start(Sh("exec sleep 30"), {});
    canceller.join();
    if (!st.ok()) {
      EXPECT_TRUE(absl::IsCancelled(st)) << st;
      continue;
    }
    ChildExit exit = child.Wait();
    EXPECT_LT(absl::Now() - t0, absl::Seconds(10)) << "iteration " << i;
    EXPECT_TRUE(exit.cancelled);
    EXPECT_EQ(exit.cancel_reason, "raced");
    EXPECT_FALSE(exit.exited() && exit.exit_code() == 0) << "iteration " << i;
  }
}

// A stop that may block (an engine call) is not sent from Cancel: Cancel
// wakes Wait, which sends it, then escalates and finally kills the child
// directly when the stop did not.
TEST(ChildSupervisorTest, AStopThatDoesNothingEndsWithTheChildKilledDirectly) {
  RealClock clock;
  ChildSupervisor child(&clock);
  absl::Mutex mu;
  std::vector<int> stops;
  SupervisorOptions options;
  options.grace_s = 0.1;
  options.kill_child_after_s = 0.1;
  options.stop_from_cancel = false;
  options.stop = [&](int sig) {
    absl::MutexLock lock(&mu);
    stops.push_back(sig);
  };
  ASSERT_TRUE(child.Start(Sh("exec sleep 30"), options).ok());
  std::thread canceller([&] {
    absl::SleepFor(absl::Milliseconds(50));
    child.Cancel("stop it");
  });
  const absl::Time t0 = absl::Now();
  ChildExit exit = child.Wait();
  canceller.join();
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));
  EXPECT_TRUE(exit.cancelled);
  EXPECT_TRUE(exit.killed_directly);
  EXPECT_EQ(exit.term_signal(), SIGKILL);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(stops, (std::vector<int>{SIGTERM, SIGKILL}));
}

TEST(ChildSupervisorTest, TicksWhileTheChildRuns) {
  RealClock clock;
  ChildSupervisor child(&clock);
  std::atomic<int> ticks{0};
  SupervisorOptions options;
  options.tick_s = 0.05;
  options.tick = [&] { ++ticks; };
  ASSERT_TRUE(child.Start(Sh("sleep 0.5"), options).ok());
  ChildExit exit = child.Wait();
  EXPECT_EQ(exit.exit_code(), 0);
  EXPECT_GE(ticks.load(), 3);
}

TEST(ChildSupervisorTest, AMissingProgramExits127WithTheReasonOnStderr) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  SpawnOptions spawn;
  spawn.argv = {"/nonexistent/prog"};
  spawn.stderr_fd = fds[1];
  spawn.exec_error_prefix = "test: cannot exec ";
  RealClock clock;
  ChildSupervisor child(&clock);
  ASSERT_TRUE(child.Start(spawn, {}).ok());
  close(fds[1]);
  ChildExit exit = child.Wait();
  char buf[256] = {0};
  ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
  close(fds[0]);
  EXPECT_EQ(exit.exit_code(), 127);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(n)),
            "test: cannot exec /nonexistent/prog: No such file or directory\n");
}

TEST(ChildSupervisorTest, TheDestructorKillsAndReapsARunningChild) {
  RealClock clock;
  pid_t pid = 0;
  {
    ChildSupervisor child(&clock);
    ASSERT_TRUE(child.Start(Sh("exec sleep 30"), {}).ok());
    pid = child.pid();
  }
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace powersweep
