#include "agent/run/latest_reading.h"

#include "common/sample_readings.h"

namespace powersweep {

void LatestReading::Observe(const v1::TelemetrySample& sample, bool count) {
  const bool has_values =
      sample.power_mw() > 0 || sample.rails_size() > 0 ||
      sample.temperatures_size() > 0 || HighestCoreKhz(sample) > 0 ||
      sample.gpu_freq_hz() > 0 || sample.mem_freq_hz() > 0;
  const int64_t now = clock_->MonotonicNanos();
  absl::MutexLock lock(&mu_);
  if (count) ++samples_;
  if (!has_values) return;
  present_ = true;
  observed_mono_ns_ = now;
  sample_.CopyFrom(sample);
}

Reading LatestReading::Get() const {
  absl::MutexLock lock(&mu_);
  Reading r;
  r.samples = samples_;
  if (!present_) return r;
  r.present = true;
  r.observed_mono_ns = observed_mono_ns_;
  r.power_w = sample_.power_mw() / 1000.0;
  r.power_provenance = sample_.power_provenance();
  for (const v1::RailSample& rail : sample_.rails()) {
    r.rails.push_back(
        {rail.name(), rail.power_mw() / 1000.0, rail.provenance()});
  }
  for (const v1::Temperature& t : sample_.temperatures()) {
    r.temperatures_c.emplace_back(t.name(), t.celsius());
  }
  r.cpu_freq_hz = HighestCoreKhz(sample_) * 1000;
  r.gpu_freq_hz = sample_.gpu_freq_hz();
  r.mem_freq_hz = sample_.mem_freq_hz();
  r.gpu_util = sample_.gpu_util();
  return r;
}

std::optional<NewestSample> LatestReading::Newest() const {
  absl::MutexLock lock(&mu_);
  if (!present_) return std::nullopt;
  return NewestSample{sample_, observed_mono_ns_};
}

}  // namespace powersweep
