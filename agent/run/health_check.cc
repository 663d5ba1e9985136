#include "agent/run/health_check.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/run/settle.h"

namespace powersweep {

bool HasPowerRails(Platform* platform) {
  for (const SensorReport& s : platform->DescribeSensors()) {
    if (absl::StartsWith(s.kind, "rail") &&
        s.provenance != v1::PROVENANCE_MODELED) {
      return true;
    }
  }
  return false;
}

HealthChecker::HealthChecker(Platform* platform, Clock* clock,
                             HealthCheckOptions options)
    : platform_(platform),
      clock_(clock),
      options_(options),
      power_rails_(HasPowerRails(platform)),
      start_ns_(clock->MonotonicNanos()) {}

void HealthChecker::MarkUnhealthy(const std::string& reason) {
  absl::MutexLock lock(&mu_);
  mark_ = reason;
}

v1::TelemetrySample HealthChecker::Read() {
  v1::TelemetrySample sample;
  // Advancing times: a platform integrating energy counters needs them.
  sample.set_t_s((clock_->MonotonicNanos() - start_ns_) * 1e-9);
  platform_->Sample({}, &sample);
  return sample;
}

std::string HealthChecker::CheckSensors() {
  v1::TelemetrySample sample = Read();
  if (!(sample.power_mw() > 0)) {
    clock_->SleepFor(options_.reread_after);
    sample = Read();
  }
  if (!(sample.power_mw() > 0) && sample.rails().empty() &&
      sample.temperatures().empty()) {
    return "no sensor answered: a telemetry sample had no power, rail or "
           "temperature reading";
  }
  if (power_rails_ && !(sample.power_mw() > 0)) {
    return "the power rails read 0 mW";
  }
  const std::optional<double> celsius = BoardTemperature(sample);
  if (celsius.has_value() && *celsius >= options_.max_temp_c) {
    return absl::StrFormat(
        "board temperature %.1f C is at or above the limit of %g C "
        "(--health_max_temp_c)",
        *celsius, options_.max_temp_c);
  }
  return "";
}

v1::DeviceHealth HealthChecker::Check(bool idle) {
  absl::MutexLock lock(&mu_);
  std::string problem = CheckSensors();
  if (problem.empty() && idle) mark_.clear();
  if (problem.empty()) problem = mark_;
  v1::DeviceHealth health;
  health.set_healthy(problem.empty());
  health.set_reason(problem);
  health.set_checked_unix_ms(absl::ToUnixMillis(clock_->Now()));
  last_ = health;
  return health;
}

std::optional<v1::DeviceHealth> HealthChecker::LastVerdict() {
  absl::MutexLock lock(&mu_);
  return last_;
}

}  // namespace powersweep
