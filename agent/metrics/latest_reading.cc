#include "agent/metrics/latest_reading.h"

#include <algorithm>

namespace powersweep {

void LatestReading::Observe(const v1::TelemetrySample& sample, bool count) {
  int64_t cpu_khz = 0;
  for (const v1::CoreSample& core : sample.cores()) {
    cpu_khz = std::max(cpu_khz, core.freq_khz());
  }
  const bool has_values = sample.power_mw() > 0 || sample.rails_size() > 0 ||
                          sample.temperatures_size() > 0 || cpu_khz > 0 ||
                          sample.gpu_freq_hz() > 0 || sample.mem_freq_hz() > 0;
  const int64_t now = clock_->MonotonicNanos();
  absl::MutexLock lock(&mu_);
  if (count) ++reading_.samples;
  if (!has_values) return;
  reading_.present = true;
  reading_.observed_mono_ns = now;
  reading_.power_w = sample.power_mw() / 1000.0;
  reading_.power_provenance = sample.power_provenance();
  reading_.rails.resize(sample.rails_size());
  for (int i = 0; i < sample.rails_size(); ++i) {
    const v1::RailSample& r = sample.rails(i);
    reading_.rails[i].name = r.name();
    reading_.rails[i].power_w = r.power_mw() / 1000.0;
    reading_.rails[i].provenance = r.provenance();
  }
  reading_.temperatures_c.resize(sample.temperatures_size());
  for (int i = 0; i < sample.temperatures_size(); ++i) {
    reading_.temperatures_c[i].first = sample.temperatures(i).name();
    reading_.temperatures_c[i].second = sample.temperatures(i).celsius();
  }
  reading_.cpu_freq_hz = cpu_khz * 1000;
  reading_.gpu_freq_hz = sample.gpu_freq_hz();
  reading_.mem_freq_hz = sample.mem_freq_hz();
  reading_.gpu_util = sample.gpu_util();
}

Reading LatestReading::Get() const {
  absl::MutexLock lock(&mu_);
  return reading_;
}

}  // namespace powersweep
