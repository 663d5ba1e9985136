// VmRuntime with real QEMU and the guest `make build` makes (build/vm-guest):
// the fake workload runs in the VM, its records come back in order, its
// exit code and stderr reach the agent, and a cancel stops the VM. A
// container_in_vm run starts the host's dockerd in the guest, loads an
// image of the fake workload (built here with build-workload-image.sh; the
// host's engine is started with infra/scripts/start-dockerd.sh) and runs
// it there. Uses KVM
// where it can boot the guest, else QEMU's emulation (TCG; this machine's
// KVM is PVM): the test says which. It fails, never skips, when QEMU or the
// guest image is missing.
#include "agent/runtime/vm/vm_runtime.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "agent/runtime/docker/docker_engine.h"
#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/docker/subprocess.h"
#include "agent/runtime/native/native_runtime.h"
#include "agent/runtime/vm/guest_image_archive.h"
#include "agent/runtime/vm/vm_setup.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

using ::testing::HasSubstr;

class VmRuntimeTest : public testing::Test {
 protected:
  void SetUp() override {
    VmOptions o;
    o.image = VM_GUEST_DIR;
    absl::StatusOr<VmSetup> auto_setup = DiscoverVms(o);
    ASSERT_TRUE(auto_setup.ok())
        << auto_setup.status() << " (make vm-image builds it)";
    if (!auto_setup->enabled) {
      o.accel = "tcg";
      auto_setup = DiscoverVms(o);
      ASSERT_TRUE(auto_setup.ok()) << auto_setup.status();
    }
    ASSERT_TRUE(auto_setup->enabled) << auto_setup->why_not;
    config_ = auto_setup->config;
    std::printf("vm runtime test: accel %s (%s)\n",
                config_.accel.accel.c_str(), config_.accel.reason.c_str());
  }

  RuntimeSpec Spec(std::vector<std::string> args) {
    RuntimeSpec spec;
    spec.argv = {FAKE_WORKLOAD};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.insert(spec.argv.end(), {"--records-fd", "3"});
    spec.stderr_log_path = absl::StrCat(
        testing::TempDir(), "/vm-",
        testing::UnitTest::GetInstance()->current_test_info()->name(), ".log");
    std::filesystem::remove(spec.stderr_log_path);
    spec.grace_s = 1;
    spec.timeout_s = 240;
    return spec;
  }
  Runtime::RecordCallback Collect() {
    return [this](const v1::WorkloadEvent& e) {
      absl::MutexLock lock(&mu_);
      events_.push_back(e);
      if (!first_.HasBeenNotified()) first_.Notify();
    };
  }
  std::vector<v1::WorkloadEvent> Events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }

  RealClock clock_;
  VmRuntimeConfig config_;
  absl::Mutex mu_;
  std::vector<v1::WorkloadEvent> events_;
  absl::Notification first_;
};

TEST_F(VmRuntimeTest, TheWorkloadRunsInTheGuestAndItsRecordsComeBack) {
  v1::VmSpec vm;
  vm.set_vcpus(2);
  vm.set_memory_mib(512);
  VmRuntime rt(&clock_, config_, vm, 1);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "5"}), Collect()).ok());
  EXPECT_GT(rt.Pid(), 0);
  const ExitStatus st = rt.Wait();
  EXPECT_EQ(st.FailureReason(), "") << st.last_stderr_line;
  const std::vector<v1::WorkloadEvent> events = Events();
  ASSERT_EQ(events.size(), 7u);  // started, 5 minibatches, finished
  EXPECT_TRUE(events.front().has_started());
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(events[i].minibatch().index(), i - 1);
  }
  EXPECT_TRUE(events.back().has_finished());
  // QEMU's CPU time, not only the guest workload's.
  EXPECT_GT(st.cpu_s, 0);
  const v1::VmRun info = rt.VmInfo();
  EXPECT_EQ(info.accel(), config_.accel.accel);
  EXPECT_EQ(info.vcpus(), 2);
  EXPECT_EQ(info.memory_mib(), 512);
  EXPECT_THAT(info.guest_kernel(), HasSubstr("linux-image-"));
  EXPECT_GT(info.boot_to_first_record_s(), 0);
  std::printf("vm start to first record: %.2f s (%s), QEMU CPU %.2f s\n",
              info.boot_to_first_record_s(), info.accel().c_str(), st.cpu_s);
}

TEST_F(VmRuntimeTest, TheGuestWorkloadsExitCodeAndStderrReachTheAgent) {
  VmRuntime rt(&clock_, config_, v1::VmSpec(), 1);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "1", "--exit-code", "3",
                             "--stderr", "failing on purpose"}),
                       Collect())
                  .ok());
  const ExitStatus st = rt.Wait();
  EXPECT_EQ(st.exit_code, 3);
  EXPECT_EQ(st.term_signal, 0);
  EXPECT_THAT(st.FailureReason(), HasSubstr("exited with code 3"));
  EXPECT_EQ(st.last_stderr_line, "failing on purpose");
}

// The agent's work dir may be relative to its cwd (the demo's is): the
// guest, which starts at /, still finds the run's script.
TEST_F(VmRuntimeTest, ARelativeWorkDirWorks) {
  ASSERT_EQ(chdir(testing::TempDir().c_str()), 0);
  VmRuntime rt(&clock_, config_, v1::VmSpec(), 1);
  RuntimeSpec spec = Spec({"--minibatches", "2"});
  spec.stderr_log_path = "vm-relative-work-dir.log";
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  const ExitStatus st = rt.Wait();
  EXPECT_EQ(st.FailureReason(), "") << st.last_stderr_line;
  EXPECT_EQ(Events().size(), 4u);  // started, 2 minibatches, finished
}

TEST_F(VmRuntimeTest, CancelStopsTheVirtualMachine) {
  VmRuntime rt(&clock_, config_, v1::VmSpec(), 1);
  ASSERT_TRUE(rt.Start(Spec({"--minibatches", "1", "--sleep-s", "120"}),
                       Collect())
                  .ok());
  ASSERT_TRUE(first_.WaitForNotificationWithTimeout(absl::Seconds(200)));
  const int pid = rt.Pid();
  rt.Cancel("sweep cancelled");
  const ExitStatus st = rt.Wait();
  EXPECT_TRUE(st.cancelled);
  EXPECT_THAT(st.FailureReason(), HasSubstr("cancelled: sweep cancelled"));
  EXPECT_LT(st.wall_s, 200);
  // QEMU is gone (reaped), so is its VM.
  EXPECT_NE(kill(pid, 0), 0);
}

// The host's engine up and an image of the fake workload in it: its tag.
absl::StatusOr<std::string> FakeWorkloadImage() {
  const std::string src = SOURCE_DIR;
  absl::StatusOr<CommandResult> up =
      RunCommand({src + "/infra/scripts/start-dockerd.sh"}, 60);
  if (!up.ok()) return up.status();
  if (!up->ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no Docker engine (infra/scripts/start-dockerd.sh; CI installs "
        "docker.io): ", up->Summary()));
  }
  absl::StatusOr<CommandResult> built = RunCommand(
      {"/usr/bin/env", "IMAGE_REPO=powersweep-fake-workload",
       src + "/infra/docker/build-workload-image.sh", FAKE_WORKLOAD},
      600);
  if (!built.ok()) return built.status();
  if (!built->ok()) {
    return absl::InternalError(
        absl::StrCat("build-workload-image.sh failed: ", built->Summary()));
  }
  const size_t at = built->out.rfind("image: ");
  if (at == std::string::npos) {
    return absl::InternalError("build-workload-image.sh printed no image");
  }
  return std::string(
      absl::StripAsciiWhitespace(built->out.substr(at + 7)));
}

TEST_F(VmRuntimeTest, ContainerInVmRunsTheImageInTheGuestsDocker) {
  absl::StatusOr<std::string> image = FakeWorkloadImage();
  ASSERT_TRUE(image.ok()) << image.status();
  DockerEngine engine;
  VmContainerRun run;
  run.config.image_allowlist = {*image};
  run.request.image = *image;
  run.request.device_id = "vmtest";
  run.request.run_id = 1;
  run.request.attempt = 1;
  absl::StatusOr<std::string> id =
      ResolveAllowedImage(run.config, &engine, *image);
  ASSERT_TRUE(id.ok()) << id.status();
  run.image_id = *id;
  GuestImageArchives archives(&engine, testing::TempDir() + "/vm-images");
  absl::StatusOr<std::string> archive = archives.ArchiveOf(*id);
  ASSERT_TRUE(archive.ok()) << archive.status();
  run.image_archive = *archive;
  v1::VmSpec vm;
  vm.set_vcpus(1);  // see vm_sweep_test.cc: 2 vCPUs under TCG once locked up
  vm.set_memory_mib(1024);
  VmRuntime rt(&clock_, config_, vm, 1, run);
  RuntimeSpec spec = Spec({"--minibatches", "3", "--exit-code", "3",
                           "--stderr", "failing in the container"});
  spec.timeout_s = 420;
  ASSERT_TRUE(rt.Start(spec, Collect()).ok());
  const ExitStatus st = rt.Wait();
  // The container's exit code and last stderr line reach the agent.
  EXPECT_EQ(st.exit_code, 3) << st.last_stderr_line;
  EXPECT_EQ(st.last_stderr_line, "failing in the container");
  const std::vector<v1::WorkloadEvent> events = Events();
  ASSERT_EQ(events.size(), 5u);  // started, 3 minibatches, finished
  EXPECT_TRUE(events.front().has_started());
  EXPECT_EQ(events[3].minibatch().index(), 2);
  const v1::VmRun info = rt.VmInfo();
  EXPECT_EQ(info.guest_image_id(), *id);
  EXPECT_GT(info.guest_engine_ready_s(), 0);
  EXPECT_GT(info.guest_image_loaded_s(), info.guest_engine_ready_s());
  EXPECT_GT(info.boot_to_first_record_s(), 0);
  std::printf(
      "container_in_vm (%s): engine ready at %.1f s, image loaded at %.1f s "
      "(guest uptime), first record %.1f s after QEMU started\n",
      info.accel().c_str(), info.guest_engine_ready_s(),
      info.guest_image_loaded_s(), info.boot_to_first_record_s());
}

}  // namespace
}  // namespace powersweep
