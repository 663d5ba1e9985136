#include "agent/telemetry/sampler.h"

#include <unistd.h>

#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "agent/platform/fake_platform.h"
#include "common/fake_clock.h"
#include "gtest/gtest.h"

namespace powersweep {
namespace {

class SamplerTest : public testing::Test {
 protected:
  // Runs the sampler until it produced `n` samples; returns them.
  std::vector<v1::TelemetrySample> RunUntil(size_t n, SamplerOptions opts,
                                            double* cpu_s = nullptr) {
    {
      absl::MutexLock lock(&mu_);
      samples_.clear();
    }
    Sampler sampler(&platform_, &clock_);
    absl::Notification enough;
    sampler.Start(opts, [&](const v1::TelemetrySample& s) {
      absl::MutexLock lock(&mu_);
      samples_.push_back(s);
      if (samples_.size() == n) enough.Notify();
    });
    EXPECT_TRUE(enough.WaitForNotificationWithTimeout(absl::Seconds(30)));
    double c = sampler.Stop();
    if (cpu_s != nullptr) *cpu_s = c;
    absl::MutexLock lock(&mu_);
    return std::vector<v1::TelemetrySample>(samples_.begin(),
                                            samples_.begin() + n);
  }

  FakeClock clock_;
  FakePlatform platform_{{0, 1}};
  absl::Mutex mu_;
  std::vector<v1::TelemetrySample> samples_;
};

TEST_F(SamplerTest, SamplesAtTheConfiguredRateOnTheClock) {
  SamplerOptions opts;
  opts.hz = 4;
  opts.cpus = {0, 1};
  opts.proc_root = FIXTURES_DIR "/proc";
  opts.run_start_mono_ns = clock_.MonotonicNanos();
  std::vector<v1::TelemetrySample> s = RunUntil(8, opts);
  ASSERT_EQ(s.size(), 8u);
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_NEAR(s[i].t_s(), 0.25 * (i + 1), 1e-9) << "sample " << i;
  }
}

TEST_F(SamplerTest, FillsCoresMemoryProcessAndPlatformParts) {
  SamplerOptions opts;
  opts.hz = 10;
  opts.cpus = {1};
  opts.pids = {4242};
  opts.proc_root = FIXTURES_DIR "/proc";
  opts.run_start_mono_ns = clock_.MonotonicNanos();
  double cpu_s = -1;
  std::vector<v1::TelemetrySample> s = RunUntil(2, opts, &cpu_s);
  const v1::TelemetrySample& x = s[1];
  ASSERT_EQ(x.cores_size(), 1);                      // only the run's CPUs
  EXPECT_EQ(x.cores(0).freq_khz(), FakePlatform::kFreqKhz);
  EXPECT_DOUBLE_EQ(x.cpu_util(), 0.0);  // fixture /proc/stat does not move
  EXPECT_EQ(x.mem_total_bytes(), 16384000LL * 1024);
  EXPECT_EQ(x.mem_used_bytes(), 8192000LL * 1024);
  EXPECT_EQ(x.proc_rss_bytes(), 10240LL * 1024);
  EXPECT_GT(x.proc_cpu_s(), 0.0);
  EXPECT_GT(cpu_s, 0.0);  // the sampler reports its own CPU time
}

// Co-located tenants: the workload figures are summed over their processes.
TEST_F(SamplerTest, SumsCpuTimeAndRssOverEveryTenantProcess) {
  SamplerOptions opts;
  opts.hz = 10;
  opts.cpus = {1};
  opts.proc_root = FIXTURES_DIR "/proc";
  opts.run_start_mono_ns = clock_.MonotonicNanos();
  opts.pids = {4242};
  std::vector<v1::TelemetrySample> one = RunUntil(1, opts, nullptr);
  opts.pids = {4242, 4243, 99999};  // 99999: gone, adds nothing
  std::vector<v1::TelemetrySample> three = RunUntil(1, opts, nullptr);
  EXPECT_EQ(three[0].proc_rss_bytes(), (10240LL + 5120) * 1024);
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  EXPECT_NEAR(three[0].proc_cpu_s() - one[0].proc_cpu_s(), 150 / ticks, 1e-9);
}

TEST_F(SamplerTest, ZeroRateTakesNoSamples) {
  Sampler sampler(&platform_, &clock_);
  SamplerOptions opts;
  opts.hz = 0;
  int calls = 0;
  sampler.Start(opts, [&](const v1::TelemetrySample&) { ++calls; });
  EXPECT_EQ(sampler.Stop(), 0.0);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace powersweep

namespace powersweep {
namespace {

TEST(SamplerOnRealProc, ReadsThisMachineAndThisProcess) {
  RealClock clock;
  FakePlatform platform({0});
  Sampler sampler(&platform, &clock);
  SamplerOptions opts;
  opts.hz = 50;
  opts.cpus = {0};
  opts.pids = {getpid()};
  opts.run_start_mono_ns = clock.MonotonicNanos();
  absl::Mutex mu;
  std::vector<v1::TelemetrySample> got;
  absl::Notification enough;
  sampler.Start(opts, [&](const v1::TelemetrySample& s) {
    absl::MutexLock lock(&mu);
    got.push_back(s);
    if (got.size() == 3) enough.Notify();
  });
  ASSERT_TRUE(enough.WaitForNotificationWithTimeout(absl::Seconds(30)));
  sampler.Stop();
  absl::MutexLock lock(&mu);
  for (const auto& s : got) {
    ASSERT_EQ(s.cores_size(), 1);
    EXPECT_GE(s.cores(0).util(), 0.0);
    EXPECT_LE(s.cores(0).util(), 1.0);
    EXPECT_GT(s.mem_total_bytes(), s.mem_used_bytes());
    EXPECT_GT(s.proc_rss_bytes(), 0);
  }
  EXPECT_LT(got[0].t_s(), got[1].t_s());
}

}  // namespace
}  // namespace powersweep
