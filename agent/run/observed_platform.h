// ObservedPlatform: a Platform that forwards every call to another one and
// hands each sample the inner platform fills (Sample) to a LatestReading.
// powersweep-agent puts it in front of its platform, so the heartbeat's
// newest sample and the /metrics page see the samples of the idle health
// checks and of native runs without ever sampling the device themselves (a
// platform is not sampled from two threads at once; see platform.h).
//
// Thread safety: that of the inner platform; LatestReading is thread-safe.
#ifndef POWERSWEEP_AGENT_RUN_OBSERVED_PLATFORM_H_
#define POWERSWEEP_AGENT_RUN_OBSERVED_PLATFORM_H_

#include <vector>

#include "agent/run/latest_reading.h"
#include "agent/platform/platform.h"

namespace powersweep {

class ObservedPlatform : public Platform {
 public:
  // Both must outlive this.
  ObservedPlatform(Platform* inner, LatestReading* reading)
      : inner_(inner), reading_(reading) {}

  v1::DeviceIdentity Identity() const override { return inner_->Identity(); }
  v1::DeviceCapabilities Capabilities() const override {
    return inner_->Capabilities();
  }
  absl::StatusOr<v1::AppliedPowerMode> Apply(
      const v1::PowerMode& mode) override {
    return inner_->Apply(mode);
  }
  std::vector<int> RunCpus() const override { return inner_->RunCpus(); }
  void Sample(const std::vector<int>& cpus,
              v1::TelemetrySample* sample) override;
  void Restore() override { inner_->Restore(); }
  absl::Status AttachWorkload(int pid) override {
    return inner_->AttachWorkload(pid);
  }
  std::vector<KnobReport> DescribeKnobs() override {
    return inner_->DescribeKnobs();
  }
  std::vector<SensorReport> DescribeSensors() override {
    return inner_->DescribeSensors();
  }
  ProbeDetails DescribeProbe() override { return inner_->DescribeProbe(); }
  std::optional<RebootTarget> RebootFor(const v1::PowerMode& mode) override {
    return inner_->RebootFor(mode);
  }
  void StartRunEnergyCounter() override { inner_->StartRunEnergyCounter(); }
  double StopRunEnergyCounter() override {
    return inner_->StopRunEnergyCounter();
  }
  void FillGpuProvenance(v1::GpuProvenance* gpu) override {
    inner_->FillGpuProvenance(gpu);
  }

 private:
  Platform* const inner_;
  LatestReading* const reading_;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_OBSERVED_PLATFORM_H_
