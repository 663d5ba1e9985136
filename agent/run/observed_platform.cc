#include "agent/run/observed_platform.h"

namespace powersweep {

void ObservedPlatform::Sample(const std::vector<int>& cpus,
                              v1::TelemetrySample* sample) {
  inner_->Sample(cpus, sample);
  reading_->Observe(*sample, /*count=*/false);
}

}  // namespace powersweep
