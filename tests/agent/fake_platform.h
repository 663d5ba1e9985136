// FakePlatform: a Platform for tests. Records what was applied, serves a
// fixed CPU list, fills a recognizable frequency in samples. Thread-safe.
#ifndef POWERSWEEP_TESTS_AGENT_FAKE_PLATFORM_H_
#define POWERSWEEP_TESTS_AGENT_FAKE_PLATFORM_H_

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"

namespace powersweep {

class FakePlatform : public Platform {
 public:
  explicit FakePlatform(std::vector<int> cpus) : cpus_(cpus), run_cpus_(cpus) {}

  v1::DeviceIdentity Identity() const override {
    v1::DeviceIdentity id;
    id.set_device_id("fake-0");
    id.set_device_class("host");
    id.set_platform("host");
    return id;
  }
  v1::DeviceCapabilities Capabilities() const override {
    v1::DeviceCapabilities caps;
    caps.set_cpu_cores(static_cast<int>(cpus_.size()));
    return caps;
  }
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override {
    absl::MutexLock lock(&mu_);
    ++applies_;
    if (mode.cpu_freq_khz() != 0) {
      return absl::InvalidArgumentError("cpu_freq_khz: fake refuses");
    }
    v1::AppliedPowerMode applied;
    *applied.mutable_requested() = mode;
    int n = mode.cpu_cores() == 0 ? static_cast<int>(cpus_.size())
                                  : mode.cpu_cores();
    run_cpus_.assign(cpus_.begin(), cpus_.begin() + n);
    applied.mutable_actual()->set_cpu_cores(n);
    applied.set_cores_provenance(v1::PROVENANCE_MEASURED);
    return applied;
  }
  std::vector<int> RunCpus() const override {
    absl::MutexLock lock(&mu_);
    return run_cpus_;
  }
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override {
    for (int i = 0; i < sample->cores_size(); ++i) {
      sample->mutable_cores(i)->set_freq_khz(kFreqKhz);
    }
  }
  void Restore() override {
    absl::MutexLock lock(&mu_);
    ++restores_;
    run_cpus_ = cpus_;
  }
  int applies() const {
    absl::MutexLock lock(&mu_);
    return applies_;
  }
  int restores() const {
    absl::MutexLock lock(&mu_);
    return restores_;
  }

  static constexpr int64_t kFreqKhz = 1234000;

 private:
  const std::vector<int> cpus_;
  mutable absl::Mutex mu_;
  std::vector<int> run_cpus_ ABSL_GUARDED_BY(mu_);
  int applies_ ABSL_GUARDED_BY(mu_) = 0;
  int restores_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_TESTS_AGENT_FAKE_PLATFORM_H_
