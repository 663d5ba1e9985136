// DockerRuntime against FakeContainerEngine: the fake runs the container's
// command (fake_workload) as a local process, so records, exit codes,
// cancel, timeout and cleanup are tested without an engine.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/docker/fake_container_engine.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;

const std::string kImageId = "sha256:" + std::string(64, 'b');

// Index of `call` in `calls` (calls.size() when absent).
size_t IndexOf(const std::vector<std::string>& calls, const std::string& call) {
  return std::find(calls.begin(), calls.end(), call) - calls.begin();
}

class DockerRuntimeFakeTest : public testing::Test {
 protected:
  void SetUp() override {
    engine_.AddImage("powersweep-workload:local", kImageId, FAKE_WORKLOAD);
    const std::string test =
        testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::path(testing::TempDir()) / ("docker_fake_" + test);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    config_.image_allowlist = {"powersweep-workload:local"};
    config_.use_init = false;  // the fake's "container" is the workload
    config_.cgroup_root = (dir_ / "cgroup").string();
    config_.poll_s = 0.01;
    request_.image = "powersweep-workload:local";
    request_.read_only_mounts = {"/usr/share"};
    request_.device_id = "dev";
    request_.run_id = 4;
    request_.attempt = 1;
  }
  RuntimeSpec Spec(std::vector<std::string> args) {
    RuntimeSpec spec;
    spec.argv = {"/host/build/workloads/powersweep-workload", "run"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.insert(spec.argv.end(), {"--records-fd", "3"});
    spec.stderr_log_path = (dir_ / "workload.log").string();
    spec.grace_s = 0.3;
    spec.cpus = {0};
    return spec;
  }
  Runtime::RecordCallback Collect() {
    return [this](const v1::WorkloadEvent& e) {
      absl::MutexLock lock(&mu_);
      events_.push_back(e);
      if (e.has_minibatch() && !first_minibatch_.HasBeenNotified()) {
        first_minibatch_.Notify();
      }
    };
  }
  std::vector<v1::WorkloadEvent> Events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  std::string Name() { return ContainerName(config_.name_prefix, request_); }

  RealClock clock_;
  FakeContainerEngine engine_;
  DockerRuntimeConfig config_;
  ContainerRequest request_;
  fs::path dir_;
  absl::Mutex mu_;
  std::vector<v1::WorkloadEvent> events_;
  absl::Notification first_minibatch_;
  std::vector<int> pids_;
};

TEST_F(DockerRuntimeFakeTest, RecordsComeThroughTheContainersStdout) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "20"}), Collect()).ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.FailureReason(), "");
  EXPECT_EQ(st.bad_record_lines, 0);
  std::vector<v1::WorkloadEvent> ev = Events();
  ASSERT_EQ(ev.size(), 22u);
  EXPECT_TRUE(ev.front().has_started());
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ev[i + 1].minibatch().index(), i);
  EXPECT_TRUE(ev.back().has_finished());
  // The workload's own stderr went to the run's log, not into the records.
  std::ifstream log(dir_ / "workload.log");
  std::string text((std::istreambuf_iterator<char>(log)),
                   std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("fake workload starting"));
}

TEST_F(DockerRuntimeFakeTest, RunsTheResolvedImageAndRemovesTheContainer) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "2"}), Collect()).ok());
  EXPECT_EQ(rt.ImageId(), kImageId);
  rt.Wait();
  std::vector<std::string> calls = engine_.Calls();
  const std::string name = Name();
  EXPECT_EQ(name, "ps-dev-r4-a1-t0");
  // Resolve the image, clear a stale container of the name, run, remove.
  EXPECT_LT(IndexOf(calls, "image-inspect powersweep-workload:local"),
            IndexOf(calls, "rm " + name));
  EXPECT_LT(IndexOf(calls, "rm " + name), IndexOf(calls, "run " + name));
  EXPECT_EQ(calls.back(), "rm " + name);
  EXPECT_TRUE(engine_.Containers().empty());
  std::vector<std::string> args = engine_.RunArgs(name);
  EXPECT_THAT(args, Contains(kImageId));
  EXPECT_THAT(args, Contains("none"));
  EXPECT_THAT(args, Contains("type=bind,source=/usr/share,target=/usr/share,"
                             "readonly"));
}

TEST_F(DockerRuntimeFakeTest, PidIsTheContainersProcessRightAfterStart) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(
      rt.Start(Spec({"--minibatches", "1", "--sleep-s", "2"}), Collect()).ok());
  const int pid = rt.Pid();
  ASSERT_GT(pid, 0);
  // The same process, once it has exec'd the container's command.
  std::string text;
  for (int i = 0; i < 500 && text.find("fake_workload") == std::string::npos;
       ++i) {
    std::ifstream cmdline(absl::StrCat("/proc/", pid, "/cmdline"));
    text.assign(std::istreambuf_iterator<char>(cmdline),
                std::istreambuf_iterator<char>());
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_THAT(text, HasSubstr("fake_workload"));
  rt.Cancel("done looking");
  rt.Wait();
}

TEST_F(DockerRuntimeFakeTest, AnImageOutsideTheAllowlistIsRefusedUnstarted) {
  engine_.AddImage("miner:1", "sha256:" + std::string(64, 'e'), FAKE_WORKLOAD);
  request_.image = "miner:1";
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  absl::Status st = rt.Start(Spec({"--minibatches", "2"}), Collect());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(st.message(),
            "image \"miner:1\" is not in this agent's image allowlist "
            "[powersweep-workload:local]");
  for (const std::string& call : engine_.Calls()) {
    EXPECT_EQ(call.rfind("run ", 0), std::string::npos) << call;
  }
}

TEST_F(DockerRuntimeFakeTest, AnAllowedImageMissingFromTheEngineIsNamed) {
  config_.image_allowlist.push_back("powersweep-workload:build-id-00");
  request_.image = "powersweep-workload:build-id-00";
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  absl::Status st = rt.Start(Spec({}), Collect());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("image \"powersweep-workload:build-id-00\" is not "
                        "available in the container engine"));
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("infra/docker/build-workload-image.sh"));
}

TEST_F(DockerRuntimeFakeTest, AnEngineThatIsDownFailsStart) {
  engine_.SetUnavailable(true);
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  absl::Status st = rt.Start(Spec({}), Collect());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("engine down"));
}

TEST_F(DockerRuntimeFakeTest, CancelSendsTermThenKillThenRemoves) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(
      rt.Start(Spec({"--minibatches", "1", "--ignore-term", "--sleep-s", "30"}),
               Collect())
          .ok());
  ASSERT_TRUE(
      first_minibatch_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  rt.Cancel("user asked");
  ExitStatus st = rt.Wait();
  EXPECT_TRUE(st.cancelled);
  EXPECT_FALSE(st.timed_out);
  EXPECT_EQ(st.term_signal, SIGKILL);  // SIGTERM was ignored
  EXPECT_EQ(st.FailureReason(), "cancelled: user asked");
  std::vector<std::string> calls = engine_.Calls();
  const std::string name = Name();
  const size_t term = IndexOf(calls, "kill " + name + " TERM");
  const size_t kill = IndexOf(calls, "kill " + name + " KILL");
  ASSERT_LT(term, calls.size());
  ASSERT_LT(kill, calls.size());
  EXPECT_LT(term, kill);
  EXPECT_EQ(calls.back(), "rm " + name);
  EXPECT_TRUE(engine_.Containers().empty());
}

TEST_F(DockerRuntimeFakeTest, CancelFromAnotherThreadEndsABlockedWaitPromptly) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  RuntimeSpec spec = Spec({"--minibatches", "1", "--sleep-s", "60"});
  spec.grace_s = 30;  // a workload that honours SIGTERM needs none of it
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ASSERT_TRUE(
      first_minibatch_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  // Wait() is already asleep on the container's client when the cancel
  // arrives from another thread, as a user's CancelRun does.
  std::thread canceller([&rt] {
    absl::SleepFor(absl::Milliseconds(300));
    rt.Cancel("user asked");
  });
  const absl::Time start = absl::Now();
  ExitStatus st = rt.Wait();
  const absl::Duration waited = absl::Now() - start;
  canceller.join();
  // The workload would have slept 60 s; Wait() ends soon after the cancel.
  EXPECT_LT(waited, absl::Seconds(10));
  EXPECT_TRUE(st.cancelled);
  EXPECT_FALSE(st.timed_out);
  EXPECT_EQ(st.term_signal, SIGTERM);
  EXPECT_EQ(st.FailureReason(), "cancelled: user asked");
  EXPECT_THAT(engine_.Calls(), Contains("kill " + Name() + " TERM"));
  EXPECT_TRUE(engine_.Containers().empty());
}

TEST_F(DockerRuntimeFakeTest, TimeoutStopsACooperativeWorkloadWithTerm) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  RuntimeSpec spec = Spec({"--minibatches", "1", "--sleep-s", "30"});
  spec.timeout_s = 0.5;
  spec.grace_s = 20;
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  ExitStatus st = rt.Wait();
  EXPECT_TRUE(st.timed_out);
  EXPECT_FALSE(st.cancelled);
  EXPECT_EQ(st.term_signal, SIGTERM);
  EXPECT_EQ(st.FailureReason(), "timed out after 0.5 s");
  EXPECT_THAT(engine_.Calls(),
              ::testing::Not(Contains("kill " + Name() + " KILL")));
  EXPECT_TRUE(engine_.Containers().empty());
}

TEST_F(DockerRuntimeFakeTest, NonZeroExitKeepsCodeAndLastStderrLine) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(rt.Start(Spec({"--exit-code", "1", "--stderr",
                             "cannot read /data/train-images: truncated"}),
                       Collect())
                  .ok());
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.exit_code, 1);
  EXPECT_EQ(st.term_signal, 0);
  EXPECT_EQ(st.FailureReason(),
            "workload exited with code 1: cannot read /data/train-images: "
            "truncated");
}

TEST_F(DockerRuntimeFakeTest, CancelBeforeStartStartsNothing) {
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  rt.Cancel("run withdrawn");
  absl::Status st = rt.Start(Spec({}), Collect());
  EXPECT_EQ(st.code(), absl::StatusCode::kCancelled);
  EXPECT_TRUE(engine_.Calls().empty());
}

TEST_F(DockerRuntimeFakeTest, StatisticsComeFromTheContainersCgroup) {
  const fs::path cg = fs::path(config_.cgroup_root);
  const std::string rel = "powersweep-containers/" + Name();
  auto write = [&](const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  write(cg / "cpuacct" / rel / "cpuacct.usage", "1250000000\n");
  write(cg / "cpuacct" / rel / "cpuacct.stat", "user 100\nsystem 25\n");
  write(cg / "memory" / rel / "memory.usage_in_bytes", "4096\n");
  write(cg / "memory" / rel / "memory.max_usage_in_bytes", "8192\n");
  write(cg / "memory" / rel / "memory.stat",
        "total_cache 1\ntotal_rss 2\ntotal_mapped_file 3\ntotal_dirty 4\n"
        "total_writeback 5\ntotal_pgpgin 6\ntotal_pgpgout 7\n"
        "total_pgfault 800\ntotal_pgmajfault 9\n");
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  EXPECT_FALSE(rt.SampleStats().ok());  // nothing runs yet
  EXPECT_FALSE(rt.ReadCounters().has_value());
  ASSERT_TRUE(
      rt.Start(Spec({"--minibatches", "1", "--sleep-s", "1"}), Collect()).ok());
  absl::StatusOr<ContainerStats> s = rt.SampleStats();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_DOUBLE_EQ(s->cpu_s, 1.25);
  EXPECT_EQ(s->memory.pgfault, 800);
  EXPECT_GT(s->workload_peak_rss_bytes, 0);  // VmHWM of the live process
  std::optional<WorkloadCounters> counters = rt.ReadCounters();
  ASSERT_TRUE(counters.has_value());
  EXPECT_EQ(counters->pgfault, 800);
  EXPECT_EQ(counters->pgmajfault, 9);
  EXPECT_EQ(counters->dirty_bytes, 4);
  EXPECT_EQ(counters->writeback_bytes, 5);
  write(cg / "cpuacct" / rel / "cpuacct.usage", "2000000000\n");
  ExitStatus st = rt.Wait();
  EXPECT_EQ(st.FailureReason(), "");
  EXPECT_DOUBLE_EQ(st.cpu_s, 2.0);  // read after the container ended
  EXPECT_GT(st.max_rss_bytes, 0);
  absl::StatusOr<ContainerStats> after = rt.SampleStats();
  ASSERT_TRUE(after.ok());
  EXPECT_DOUBLE_EQ(after->cpu_s, 2.0);
}

TEST_F(DockerRuntimeFakeTest, LeftoverContainersOfTheDeviceAreRemoved) {
  auto run = [this](const std::string& name, const std::string& device) {
    absl::StatusOr<int> pid =
        engine_.StartAttached({"run", "--name", name, "--label",
                               absl::StrCat("powersweep.device=", device),
                               kImageId, "/w", "--sleep-s", "30"},
                              -1, -1);
    ASSERT_TRUE(pid.ok()) << pid.status();
    pids_.push_back(*pid);
  };
  run("ps-dev-r1-a1-t0", "dev");
  run("ps-dev-r1-a1-t1", "dev");
  run("ps-other-r9-a1-t0", "other");
  absl::StatusOr<std::vector<std::string>> removed =
      RemoveLeftoverContainers(&engine_, config_, "dev");
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_THAT(*removed, ::testing::UnorderedElementsAre("ps-dev-r1-a1-t0",
                                                        "ps-dev-r1-a1-t1"));
  EXPECT_THAT(engine_.Containers(),
              ::testing::ElementsAre("ps-other-r9-a1-t0"));
  for (int pid : pids_) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
}

}  // namespace
}  // namespace powersweep
