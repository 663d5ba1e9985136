// FakePlatform: a Platform for tests. Identity "fake-0" of class "host";
// capabilities are its CPU count (hardware only, as every platform's).
// Records how often a mode was applied and restored, refuses a CPU
// frequency (InvalidArgument naming cpu_freq_khz), runs on the first
// cpu_cores of its CPUs, and fills kFreqKhz as every core's frequency in
// samples. Subclasses may override Sample to add power.
//
// Built into powersweep_agent_testing, which only tests link. Thread-safe.
#ifndef POWERSWEEP_AGENT_PLATFORM_FAKE_PLATFORM_H_
#define POWERSWEEP_AGENT_PLATFORM_FAKE_PLATFORM_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "agent/platform/platform.h"

namespace powersweep {

class FakePlatform : public Platform {
 public:
  explicit FakePlatform(std::vector<int> cpus);

  v1::DeviceIdentity Identity() const override;
  v1::DeviceCapabilities Capabilities() const override;
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override;
  std::vector<int> RunCpus() const override;
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override;

  int applies() const;
  int restores() const;

  static constexpr int64_t kFreqKhz = 1234000;

 private:
  const std::vector<int> cpus_;
  mutable absl::Mutex mu_;
  std::vector<int> run_cpus_ ABSL_GUARDED_BY(mu_);
  int applies_ ABSL_GUARDED_BY(mu_) = 0;
  int restores_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_PLATFORM_FAKE_PLATFORM_H_
