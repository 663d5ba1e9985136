// DockerRuntime against the real Docker engine and the workload image built
// from this build's powersweep-workload (real LeNet on Fashion-MNIST).
// Starts dockerd and builds the image when needed; fails (does not skip)
// when docker.io is not installed.
#include "agent/runtime/docker/docker_engine.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "agent/runtime/docker/docker_runtime.h"
#include "agent/runtime/docker/subprocess.h"
#include "agent/runtime/native/native_runtime.h"
#include "common/clock.h"
#include "common/fingerprint.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr char kDataset[] = "/usr/share/datasets/fashion-mnist";

// Set once per process by SetUpTestSuite.
absl::Status* g_ready = nullptr;
std::string* g_image = nullptr;

// Records of one run, thread-safe.
class Recorder {
 public:
  Runtime::RecordCallback Callback(Clock* clock = nullptr) {
    return [this, clock](const v1::WorkloadEvent& e) {
      absl::MutexLock lock(&mu_);
      if (e.has_started() && clock != nullptr) {
        started_ns_ = clock->MonotonicNanos();
      }
      if (e.has_minibatch()) ++minibatches_;
      if (minibatches_ >= 2 && !two_minibatches_.HasBeenNotified()) {
        two_minibatches_.Notify();
      }
      events_.push_back(e);
    };
  }
  std::vector<v1::WorkloadEvent> events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  int64_t started_ns() {
    absl::MutexLock lock(&mu_);
    return started_ns_;
  }
  absl::Notification two_minibatches_;

 private:
  absl::Mutex mu_;
  std::vector<v1::WorkloadEvent> events_;
  int minibatches_ = 0;
  int64_t started_ns_ = 0;
};

std::vector<std::string> DockerPsNames(const std::string& name) {
  absl::StatusOr<CommandResult> r =
      RunCommand({kDefaultDockerClient, "ps", "--all", "--filter",
                  absl::StrCat("name=^/", name, "$"), "--format", "{{.Names}}"},
                 30);
  std::vector<std::string> out;
  if (!r.ok()) return {"<docker ps failed>"};
  for (absl::string_view l : absl::StrSplit(r->out, '\n')) {
    l = absl::StripAsciiWhitespace(l);
    if (!l.empty()) out.emplace_back(l);
  }
  return out;
}

// Directories of the container's parent cgroup still present.
std::vector<std::string> CgroupLeftovers(const DockerRuntimeConfig& config,
                                         const std::string& name) {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(config.cgroup_root, ec)) {
    fs::path p = e.path() / config.cgroup_parent / name;
    if (fs::exists(p, ec)) left.push_back(p.string());
  }
  return left;
}

class DockerEngineTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    g_ready = new absl::Status();
    g_image = new std::string();
    const std::string src = SOURCE_DIR;
    absl::StatusOr<CommandResult> up =
        RunCommand({src + "/infra/scripts/start-dockerd.sh"}, 60);
    if (!up.ok() || !up->ok()) {
      *g_ready = absl::FailedPreconditionError(absl::StrCat(
          "no Docker engine (infra/scripts/start-dockerd.sh): ",
          up.ok() ? up->Summary() : std::string(up.status().message()),
          " -- these tests need docker.io (CI installs it)"));
      return;
    }
    if (!fs::is_directory(kDataset)) {
      *g_ready = absl::FailedPreconditionError(
          absl::StrCat(kDataset, " is not installed (dataset-fashion-mnist)"));
      return;
    }
    const absl::Time t0 = absl::Now();
    absl::StatusOr<CommandResult> built = RunCommand(
        {src + "/infra/docker/build-workload-image.sh", REAL_WORKLOAD}, 900);
    if (!built.ok() || !built->ok()) {
      *g_ready = absl::InternalError(
          absl::StrCat("build-workload-image.sh failed: ",
                       built.ok() ? built->Summary()
                                  : std::string(built.status().message())));
      return;
    }
    for (absl::string_view l : absl::StrSplit(built->out, '\n')) {
      if (absl::ConsumePrefix(&l, "image: ")) *g_image = std::string(l);
    }
    printf("[ figure ] workload image %s ready in %.1f s (%s)\n",
           g_image->c_str(), absl::ToDoubleSeconds(absl::Now() - t0),
           absl::StrContains(built->out, "not rebuilt") ? "cached" : "built");
  }

  void SetUp() override {
    ASSERT_TRUE(g_ready->ok()) << *g_ready;
    config_.image_allowlist = {*g_image};
    config_.poll_s = 0.02;
    request_.image = *g_image;
    request_.read_only_mounts = {kDataset};
    request_.device_id = absl::StrCat("dtest", getpid());
    request_.run_id = 1;
    request_.attempt = 1;
    log_dir_ = fs::path(testing::TempDir()) / "docker_engine_test";
    fs::create_directories(log_dir_);
  }

  RuntimeSpec Spec(const std::string& task, std::vector<std::string> stop,
                   const std::string& log_name) {
    RuntimeSpec spec;
    spec.argv = {REAL_WORKLOAD,    "run",    "--model",   "lenet5",
                 "--dataset-path", kDataset, "--task",    task,
                 "--batch-size",   "64",     "--workers", "1",
                 "--seed",         "1",      "--threads", "1"};
    spec.argv.insert(spec.argv.end(), stop.begin(), stop.end());
    spec.argv.insert(spec.argv.end(), {"--records-fd", "3"});
    spec.cpus = {0};
    spec.stderr_log_path = (log_dir_ / log_name).string();
    fs::remove(spec.stderr_log_path);
    spec.grace_s = 2;
    return spec;
  }

  RealClock clock_;
  DockerEngine engine_;
  DockerRuntimeConfig config_;
  ContainerRequest request_;
  fs::path log_dir_;
};

int CountMinibatches(const std::vector<v1::WorkloadEvent>& ev) {
  return static_cast<int>(std::count_if(
      ev.begin(), ev.end(),
      [](const v1::WorkloadEvent& e) { return e.has_minibatch(); }));
}

TEST_F(DockerEngineTest, EngineIsReachableAndADeadSocketIsReported) {
  EXPECT_TRUE(DockerAvailable(kDefaultDockerClient).ok());
  const char* old = getenv("DOCKER_HOST");
  std::string saved = old == nullptr ? "" : old;
  setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock", 1);
  absl::Status st = DockerAvailable(kDefaultDockerClient);
  if (old == nullptr) {
    unsetenv("DOCKER_HOST");
  } else {
    setenv("DOCKER_HOST", saved.c_str(), 1);
  }
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr("docker engine not reachable: Cannot connect to the "
                        "Docker daemon"));
}

TEST_F(DockerEngineTest, LeNetInAContainerMatchesTheNativeBuild) {
  // Native first: the provenance the container run must reproduce.
  Recorder native_rec;
  NativeRuntime native(&clock_);
  int64_t t0 = clock_.MonotonicNanos();
  ASSERT_TRUE(native
                  .Start(Spec("train", {"--minibatches", "5"}, "native.log"),
                         native_rec.Callback(&clock_))
                  .ok());
  ExitStatus native_exit = native.Wait();
  ASSERT_EQ(native_exit.FailureReason(), "");
  const double native_first_record_s = (native_rec.started_ns() - t0) * 1e-9;

  Recorder rec;
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  t0 = clock_.MonotonicNanos();
  ASSERT_TRUE(rt.Start(Spec("train", {"--minibatches", "5"}, "lenet.log"),
                       rec.Callback(&clock_))
                  .ok());
  const double start_call_s = (clock_.MonotonicNanos() - t0) * 1e-9;
  EXPECT_GT(rt.Pid(), 0);
  ExitStatus exit = rt.Wait();
  EXPECT_EQ(exit.FailureReason(), "");
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_GT(exit.cpu_s, 0);
  EXPECT_GT(exit.max_rss_bytes, 0);
  const double container_first_record_s = (rec.started_ns() - t0) * 1e-9;

  std::vector<v1::WorkloadEvent> ev = rec.events();
  ASSERT_EQ(ev.size(), 7u);
  ASSERT_TRUE(ev.front().has_started());
  EXPECT_EQ(CountMinibatches(ev), 5);
  EXPECT_EQ(ev.back().finished().stop_reason(), "minibatches");

  const v1::BuildProvenance in_container = ev.front().started();
  std::vector<v1::WorkloadEvent> native_ev = native_rec.events();
  ASSERT_FALSE(native_ev.empty());
  const v1::BuildProvenance on_host = native_ev.front().started();
  EXPECT_EQ(in_container.binary_fingerprint(), on_host.binary_fingerprint());
  EXPECT_EQ(in_container.framework_fingerprint(),
            on_host.framework_fingerprint());
  EXPECT_FALSE(in_container.framework_fingerprint().empty());
  absl::StatusOr<std::string> fp = BuildIdOfFile(REAL_WORKLOAD);
  ASSERT_TRUE(fp.ok()) << fp.status();
  EXPECT_EQ(in_container.binary_fingerprint(), *fp);
  EXPECT_EQ(*g_image, WorkloadImageTag(*fp));  // the image is tagged with it

  EXPECT_THAT(DockerPsNames(rt.ContainerName()), ::testing::IsEmpty());
  EXPECT_THAT(CgroupLeftovers(config_, rt.ContainerName()),
              ::testing::IsEmpty());
  printf(
      "[ figure ] start to `started` record: native %.3f s, container "
      "%.3f s (Start() returned after %.3f s); wall native %.2f s, "
      "container %.2f s\n",
      native_first_record_s, container_first_record_s, start_call_s,
      native_exit.wall_s, exit.wall_s);
}

TEST_F(DockerEngineTest, CancelMidRunLeavesNoContainer) {
  Recorder rec;
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(rt.Start(Spec("train", {"--duration-s", "300"}, "cancel.log"),
                       rec.Callback())
                  .ok());
  ASSERT_TRUE(
      rec.two_minibatches_.WaitForNotificationWithTimeout(absl::Seconds(60)));
  const absl::Time t0 = absl::Now();
  rt.Cancel("operator cancelled the sweep");
  ExitStatus exit = rt.Wait();
  EXPECT_TRUE(exit.cancelled);
  EXPECT_EQ(exit.FailureReason(), "cancelled: operator cancelled the sweep");
  // The init forwarded SIGTERM: the workload ended by it, not by SIGKILL.
  EXPECT_EQ(exit.term_signal, 15);
  EXPECT_THAT(DockerPsNames(rt.ContainerName()), ::testing::IsEmpty());
  EXPECT_THAT(CgroupLeftovers(config_, rt.ContainerName()),
              ::testing::IsEmpty());
  printf("[ figure ] cancel to container gone: %.3f s\n",
         absl::ToDoubleSeconds(absl::Now() - t0));
}

TEST_F(DockerEngineTest, TimeoutLeavesNoContainer) {
  Recorder rec;
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  RuntimeSpec spec = Spec("infer", {"--duration-s", "300"}, "timeout.log");
  spec.timeout_s = 4;
  ASSERT_TRUE(rt.Start(spec, rec.Callback()).ok());
  ExitStatus exit = rt.Wait();
  EXPECT_TRUE(exit.timed_out);
  EXPECT_FALSE(exit.cancelled);
  EXPECT_EQ(exit.FailureReason(), "timed out after 4 s");
  EXPECT_GT(CountMinibatches(rec.events()), 0);
  EXPECT_THAT(DockerPsNames(rt.ContainerName()), ::testing::IsEmpty());
  EXPECT_THAT(CgroupLeftovers(config_, rt.ContainerName()),
              ::testing::IsEmpty());
}

TEST_F(DockerEngineTest, AnImageOutsideTheAllowlistIsRefused) {
  request_.image = "powersweep-workload:not-allowed";
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  Recorder rec;
  absl::Status st = rt.Start(
      Spec("infer", {"--minibatches", "1"}, "refused.log"), rec.Callback());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(st.message(),
            absl::StrCat("image \"powersweep-workload:not-allowed\" is not in "
                         "this agent's image allowlist [",
                         *g_image, "]"));
  EXPECT_THAT(DockerPsNames(rt.ContainerName()), ::testing::IsEmpty());
  EXPECT_TRUE(rec.events().empty());
}

TEST_F(DockerEngineTest, PerContainerStatisticsGrowDuringTheRun) {
  Recorder rec;
  DockerRuntime rt(config_, request_, &engine_, &clock_);
  ASSERT_TRUE(rt.Start(Spec("train", {"--duration-s", "4"}, "stats.log"),
                       rec.Callback())
                  .ok());
  std::vector<ContainerStats> samples;
  std::atomic<bool> ended{false};
  std::thread sampler([&] {
    // Every 250 ms while it runs, and twice after the end.
    for (int after_end = 0; after_end < 2;) {
      if (ended) ++after_end;
      absl::StatusOr<ContainerStats> s = rt.SampleStats();
      if (s.ok()) samples.push_back(*s);
      absl::SleepFor(absl::Milliseconds(250));
    }
  });
  ExitStatus exit = rt.Wait();
  ended = true;
  sampler.join();
  EXPECT_EQ(exit.FailureReason(), "");
  ASSERT_GE(samples.size(), 3u);
  for (size_t i = 1; i < samples.size(); ++i) {
    EXPECT_GE(samples[i].cpu_s, samples[i - 1].cpu_s) << i;
    EXPECT_GE(samples[i].memory.pgfault, samples[i - 1].memory.pgfault) << i;
    EXPECT_GE(samples[i].memory.pgmajfault, samples[i - 1].memory.pgmajfault)
        << i;
    EXPECT_GE(samples[i].memory_peak_bytes, samples[i - 1].memory_peak_bytes)
        << i;
  }
  // Samples after the end repeat the final statistics.
  const ContainerStats& first = samples.front();
  const ContainerStats& last = samples.back();
  EXPECT_GT(first.memory_usage_bytes, 0);
  EXPECT_GT(last.cpu_s, 1.0);  // 4 s of training on one core
  EXPECT_GT(last.memory.pgfault, 0);
  EXPECT_GT(last.memory_peak_bytes, 0);
  EXPECT_GT(last.workload_peak_rss_bytes, 0);
  EXPECT_DOUBLE_EQ(exit.cpu_s, last.cpu_s);
  EXPECT_EQ(exit.max_rss_bytes, last.workload_peak_rss_bytes);
  printf(
      "[ figure ] container stats over %zu samples: cpu %.2f s "
      "(user %.2f, sys %.2f), cgroup memory peak %.1f MB, workload peak "
      "RSS %.1f MB, pgfault %lld, pgmajfault %lld, dirty %lld B, "
      "writeback %lld B\n",
      samples.size(), last.cpu_s, last.cpu_user_s, last.cpu_system_s,
      last.memory_peak_bytes / 1e6, last.workload_peak_rss_bytes / 1e6,
      static_cast<long long>(last.memory.pgfault),
      static_cast<long long>(last.memory.pgmajfault),
      static_cast<long long>(last.memory.dirty_bytes),
      static_cast<long long>(last.memory.writeback_bytes));
}

TEST_F(DockerEngineTest, FourCoLocatedTenantsEachGetTheirOwnRecords) {
  constexpr int kTenants = 4;
  std::vector<std::unique_ptr<Recorder>> recs;
  std::vector<std::unique_ptr<DockerRuntime>> rts;
  for (int t = 0; t < kTenants; ++t) {
    ContainerRequest r = request_;
    r.tenant = t;
    recs.push_back(std::make_unique<Recorder>());
    rts.push_back(
        std::make_unique<DockerRuntime>(config_, r, &engine_, &clock_));
    RuntimeSpec spec = Spec(t % 2 == 0 ? "train" : "infer",
                            {"--minibatches", absl::StrCat(3 + t)},
                            absl::StrCat("tenant", t, ".log"));
    spec.cpus = {t % 2};
    ASSERT_TRUE(rts[t]->Start(spec, recs[t]->Callback()).ok()) << t;
  }
  // All four run at once before any is waited for.
  for (int t = 0; t < kTenants; ++t) EXPECT_GT(rts[t]->Pid(), 0) << t;
  std::vector<ExitStatus> exits(kTenants);
  std::vector<std::thread> waiters;
  for (int t = 0; t < kTenants; ++t) {
    waiters.emplace_back([&, t] { exits[t] = rts[t]->Wait(); });
  }
  for (std::thread& w : waiters) w.join();
  for (int t = 0; t < kTenants; ++t) {
    EXPECT_EQ(exits[t].FailureReason(), "") << "tenant " << t;
    std::vector<v1::WorkloadEvent> ev = recs[t]->events();
    ASSERT_FALSE(ev.empty()) << t;
    EXPECT_TRUE(ev.front().has_started()) << t;
    EXPECT_EQ(CountMinibatches(ev), 3 + t) << t;
    EXPECT_EQ(ev.back().finished().minibatches(), 3 + t) << t;
    EXPECT_GT(exits[t].cpu_s, 0) << t;
    EXPECT_THAT(DockerPsNames(rts[t]->ContainerName()), ::testing::IsEmpty());
  }
  EXPECT_NE(rts[0]->ContainerName(), rts[1]->ContainerName());
}

// Not an assertion: median time from Start() to the `started` record over
// a few runs, native vs container, printed for the report.
TEST_F(DockerEngineTest, PrintsStartOverheadNativeVsContainer) {
  constexpr int kRuns = 3;
  std::vector<double> native_s, container_s, container_total_s, native_total_s;
  for (int i = 0; i < kRuns; ++i) {
    {
      Recorder rec;
      NativeRuntime rt(&clock_);
      const int64_t t0 = clock_.MonotonicNanos();
      ASSERT_TRUE(rt.Start(Spec("infer", {"--minibatches", "1"}, "bench-n.log"),
                           rec.Callback(&clock_))
                      .ok());
      ExitStatus e = rt.Wait();
      ASSERT_EQ(e.FailureReason(), "");
      native_s.push_back((rec.started_ns() - t0) * 1e-9);
      native_total_s.push_back((clock_.MonotonicNanos() - t0) * 1e-9);
    }
    {
      Recorder rec;
      ContainerRequest r = request_;
      r.run_id = 100 + i;
      DockerRuntime rt(config_, r, &engine_, &clock_);
      const int64_t t0 = clock_.MonotonicNanos();
      ASSERT_TRUE(rt.Start(Spec("infer", {"--minibatches", "1"}, "bench-c.log"),
                           rec.Callback(&clock_))
                      .ok());
      ExitStatus e = rt.Wait();
      ASSERT_EQ(e.FailureReason(), "");
      container_s.push_back((rec.started_ns() - t0) * 1e-9);
      container_total_s.push_back((clock_.MonotonicNanos() - t0) * 1e-9);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  printf(
      "[ figure ] median over %d runs, Start() to `started` record: "
      "native %.3f s, container %.3f s (overhead %.3f s); Start() to "
      "container removed after 1 minibatch: native %.3f s, container "
      "%.3f s\n",
      kRuns, median(native_s), median(container_s),
      median(container_s) - median(native_s), median(native_total_s),
      median(container_total_s));
}

}  // namespace
}  // namespace powersweep
