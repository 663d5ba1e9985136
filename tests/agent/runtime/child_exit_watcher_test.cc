#include "agent/runtime/child_exit_watcher.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

class ChildExitWatcherTest
    : public testing::TestWithParam<ChildExitWatcher::Method> {};

// A child that waits for a byte on a pipe, then exits with code 7.
pid_t ForkWaitingChild(int* release_fd) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[1]);
    char c;
    (void)!read(fds[0], &c, 1);
    _exit(7);
  }
  close(fds[0]);
  *release_fd = fds[1];
  return pid;
}

TEST_P(ChildExitWatcherTest, NotifiesOnExitAndLeavesTheChildToItsOwner) {
  int release = -1;
  const pid_t pid = ForkWaitingChild(&release);
  ASSERT_GT(pid, 0);
  {
    ChildExitWatcher watcher(pid, GetParam());
    // Still running: not notified.
    EXPECT_FALSE(watcher.exited()->WaitForNotificationWithTimeout(
        absl::Milliseconds(200)));
    ASSERT_EQ(write(release, "x", 1), 1);
    EXPECT_TRUE(watcher.exited()->WaitForNotificationWithTimeout(
        absl::Seconds(30)));
  }
  // Not reaped by the watcher: the owner gets the exit status.
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  close(release);
}

TEST_P(ChildExitWatcherTest, AKilledChildIsSeenAndTheWatcherJoins) {
  int release = -1;
  const pid_t pid = ForkWaitingChild(&release);
  ASSERT_GT(pid, 0);
  ChildExitWatcher watcher(pid, GetParam());
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);  // the owner reaps first
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(
      watcher.exited()->WaitForNotificationWithTimeout(absl::Seconds(30)));
  close(release);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, ChildExitWatcherTest,
    testing::Values(ChildExitWatcher::Method::kAuto,
                    ChildExitWatcher::Method::kWaitid),
    [](const testing::TestParamInfo<ChildExitWatcher::Method>& info) {
      return info.param == ChildExitWatcher::Method::kAuto ? "Pidfd"
                                                           : "Waitid";
    });

}  // namespace
}  // namespace powersweep
