#include "agent/runtime/native/native_runtime.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

class NativeRuntimeTest : public testing::Test {
 protected:
  RuntimeSpec Spec(std::vector<std::string> args) {
    RuntimeSpec spec;
    spec.argv = {FAKE_WORKLOAD};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.insert(spec.argv.end(), {"--records-fd", "3"});
    const testing::TestInfo* info =
        testing::UnitTest::GetInstance()->current_test_info();
    spec.stderr_log_path =
        absl::StrCat(testing::TempDir(), "/", info->name(), ".log");
    std::filesystem::remove(spec.stderr_log_path);
    spec.grace_s = 0.2;
    return spec;
  }
  Runtime::RecordCallback Collect() {
    return [this](const v1::WorkloadEvent& e) {
      absl::MutexLock lock(&mu_);
      events_.push_back(e);
      // The first run's start: a test may run several (Notify once only).
      if (e.has_started() && !started_.HasBeenNotified()) started_.Notify();
    };
  }
  std::vector<v1::WorkloadEvent> Events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }

  RealClock clock_;
  absl::Mutex mu_;
  std::vector<v1::WorkloadEvent> events_;
  absl::Notification started_;
};

TEST_F(NativeRuntimeTest, DeliversRecordsInOrderAndReportsSuccess) {
  NativeRuntime rt(&clock_);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "50"}), Collect()).ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.exit_code, 0);
  EXPECT_EQ(st.term_signal, 0);
  EXPECT_EQ(st.FailureReason(), "");
  EXPECT_EQ(st.bad_record_lines, 0);
  std::vector<v1::WorkloadEvent> ev = Events();
  ASSERT_EQ(ev.size(), 52u);
  EXPECT_TRUE(ev.front().has_started());
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(ev[i + 1].has_minibatch());
    EXPECT_EQ(ev[i + 1].minibatch().index(), i);
  }
  EXPECT_TRUE(ev.back().has_finished());
}

TEST_F(NativeRuntimeTest, NonZeroExitGivesCodeAndLastStderrLine) {
  NativeRuntime rt(&clock_);
  ASSERT_TRUE(rt.Start(Spec({"--exit-code", "1", "--stderr",
                             "cannot read /data/train-images: truncated"}),
                       Collect())
                  .ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.exit_code, 1);
  EXPECT_EQ(st.FailureReason(),
            "workload exited with code 1: cannot read /data/train-images: "
            "truncated");
}

TEST_F(NativeRuntimeTest, CrashReportsTheSignalAndLastStderrLine) {
  NativeRuntime rt(&clock_);
  ASSERT_TRUE(
      rt.Start(Spec({"--crash", "--stderr", "about to crash"}), Collect())
          .ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.term_signal, SIGABRT);
  EXPECT_EQ(st.FailureReason(),
            absl::StrCat("workload killed by signal ", SIGABRT,
                         ": about to crash"));
}

TEST_F(NativeRuntimeTest, CancelEscalatesToSigkillWithinGraceAndReaps) {
  NativeRuntime rt(&clock_);
  ASSERT_TRUE(
      rt.Start(Spec({"--ignore-term", "--sleep-s", "30"}), Collect()).ok());
  ASSERT_TRUE(started_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  const int pid = rt.Pid();
  const absl::Time t0 = absl::Now();
  rt.Cancel("user asked");
  ExitStatus st = rt.Wait();
  EXPECT_LT(absl::Now() - t0, absl::Seconds(5));  // not the 30 s sleep
  EXPECT_TRUE(st.cancelled);
  EXPECT_EQ(st.term_signal, SIGKILL);  // SIGTERM was ignored
  EXPECT_EQ(st.FailureReason(), "cancelled: user asked");
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(NativeRuntimeTest, CancelStopsACooperativeWorkloadWithSigterm) {
  NativeRuntime rt(&clock_);
  ASSERT_TRUE(rt.Start(Spec({"--sleep-s", "30"}), Collect()).ok());
  ASSERT_TRUE(started_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  rt.Cancel("stop");
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.term_signal, SIGTERM);
}

TEST_F(NativeRuntimeTest, TimeoutIsEnforcedOnTheClock) {
  FakeClock fake;  // every wait advances it, so 600 s pass quickly
  NativeRuntime rt(&fake);
  RuntimeSpec spec = Spec({"--sleep-s", "30"});
  spec.timeout_s = 600;
  spec.grace_s = 3600;
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ExitStatus st = rt.Wait();
  EXPECT_TRUE(st.timed_out);
  EXPECT_TRUE(st.term_signal == SIGTERM || st.term_signal == SIGKILL)
      << st.term_signal;
  EXPECT_EQ(st.FailureReason(), "timed out after 600 s");
  EXPECT_GE(st.wall_s, 600.0);
}

TEST_F(NativeRuntimeTest, ChildRunsWithExactlyTheRequestedCpus) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
  int last = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mine)) last = c;
  }
  ASSERT_GE(last, 0);
  NativeRuntime rt(&clock_);
  RuntimeSpec spec = Spec({"--print-affinity"});
  spec.cpus = {last};
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ASSERT_EQ(rt.Wait().exit_code, 0);
  std::vector<v1::WorkloadEvent> ev = Events();
  ASSERT_FALSE(ev.empty());
  EXPECT_EQ(ev[0].started().device(), absl::StrCat(last));
}

TEST_F(NativeRuntimeTest, ArgvIsPassedVerbatimWithoutAShell) {
  const std::string marker = testing::TempDir() + "/shell_ran";
  std::filesystem::remove(marker);
  const std::string evil = "$(touch " + marker + "); echo `id` | cat";
  NativeRuntime rt(&clock_);
  RuntimeSpec spec = Spec({"--print-argv", evil, "two words"});
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ASSERT_EQ(rt.Wait().exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(marker));
  std::ifstream log(spec.stderr_log_path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(log, l);) lines.push_back(l);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], FAKE_WORKLOAD);
  EXPECT_EQ(lines[1], "--print-argv");
  EXPECT_EQ(lines[2], evil);
  EXPECT_EQ(lines[3], "two words");
}

// Cancel from another thread while Start runs, at varying moments: the run
// ends cancelled (or Start refuses), never with the workload's own exit.
TEST_F(NativeRuntimeTest, ACancelRacingStartEndsTheRunCancelled) {
  for (int i = 0; i < 25; ++i) {
    NativeRuntime rt(&clock_);
    std::atomic<bool> go{false};
    std::thread canceller([&] {
      while (!go) {
      }
      for (int spin = 0; spin < (i % 5) * 500; ++spin) {
        asm volatile("" ::: "memory");
      }
      rt.Cancel("raced");
    });
    go = true;
    absl::Status started = rt.Start(Spec({"--sleep-s", "30"}), Collect());
    canceller.join();
    if (!started.ok()) {
      EXPECT_TRUE(absl::IsCancelled(started)) << started;
      continue;
    }
    const absl::Time t0 = absl::Now();
    ExitStatus st = rt.Wait();
    EXPECT_LT(absl::Now() - t0, absl::Seconds(10)) << "iteration " << i;
    EXPECT_TRUE(st.cancelled) << "iteration " << i;
    EXPECT_EQ(st.FailureReason(), "cancelled: raced");
  }
}

TEST_F(NativeRuntimeTest, MissingBinaryFailsWithExitCode127NamingIt) {
  NativeRuntime rt(&clock_);
  RuntimeSpec spec = Spec({});
  spec.argv[0] = "/nonexistent/powersweep-workload";
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.exit_code, 127);
  EXPECT_NE(st.FailureReason().find("/nonexistent/powersweep-workload"),
            std::string::npos);
}

}  // namespace
}  // namespace powersweep
