#include "agent/platform/fake_platform.h"

#include <utility>

#include "absl/status/status.h"

namespace powersweep {

FakePlatform::FakePlatform(std::vector<int> cpus)
    : cpus_(cpus), run_cpus_(std::move(cpus)) {}

v1::DeviceIdentity FakePlatform::Identity() const {
  v1::DeviceIdentity id;
  id.set_device_id("fake-0");
  id.set_device_class("host");
  id.set_platform("host");
  return id;
}

v1::DeviceCapabilities FakePlatform::Capabilities() const {
  v1::DeviceCapabilities caps;
  caps.set_cpu_cores(static_cast<int>(cpus_.size()));
  return caps;
}

absl::StatusOr<v1::AppliedPowerMode> FakePlatform::Apply(
    const v1::PowerMode& mode) {
  absl::MutexLock lock(&mu_);
  ++applies_;
  if (mode.cpu_freq_khz() != 0) {
    return absl::InvalidArgumentError("cpu_freq_khz: fake refuses");
  }
  v1::AppliedPowerMode applied;
  *applied.mutable_requested() = mode;
  const int n = mode.cpu_cores() == 0 ? static_cast<int>(cpus_.size())
                                      : mode.cpu_cores();
  run_cpus_.assign(cpus_.begin(), cpus_.begin() + n);
  applied.mutable_actual()->set_cpu_cores(n);
  applied.set_cores_provenance(v1::PROVENANCE_MEASURED);
  return applied;
}

std::vector<int> FakePlatform::RunCpus() const {
  absl::MutexLock lock(&mu_);
  return run_cpus_;
}

void FakePlatform::Sample(const std::vector<int>& cpus,
                          v1::TelemetrySample* sample) {
  for (int i = 0; i < sample->cores_size(); ++i) {
    sample->mutable_cores(i)->set_freq_khz(kFreqKhz);
  }
}

void FakePlatform::Restore() {
  absl::MutexLock lock(&mu_);
  ++restores_;
  run_cpus_ = cpus_;
}

int FakePlatform::applies() const {
  absl::MutexLock lock(&mu_);
  return applies_;
}

int FakePlatform::restores() const {
  absl::MutexLock lock(&mu_);
  return restores_;
}

}  // namespace powersweep
