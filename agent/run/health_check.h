// HealthChecker: the agent checks itself before it takes runs (at
// registration, in every heartbeat while idle, and when an assignment
// arrives, before accepting it). One check takes one Platform::Sample and
// passes when:
// - the sensors answer: the sample carries a power reading, a rail or a
//   temperature;
// - a board with power rails reports power above 0 (it has them when the
//   platform describes a rail that is not modeled: jetson's INA3221
//   channels, a twin's simulated rails, a host's RAPL domains; a host
//   without RAPL has only modeled power and is not held to this);
// - the board temperature (BoardTemperature, common/sample_readings.h: the
//   hottest sensor, PMIC excluded) is below max_temp_c. A board without
//   temperature sensors passes this part.
// A sample without power is read once more after `reread_after`: energy
// counters such as RAPL give power only from their second reading.
//
// A run whose power mode did not read back as requested marks the device
// unhealthy (MarkUnhealthy): every check fails with that reason until the
// next passing idle check (registration or heartbeat), which ends the
// mark; the check of an assignment does not end it.
//
// Thread-safe (one mutex; checks are serialized). The caller makes sure no
// run samples the platform meanwhile (agent/session/session.h).
#ifndef POWERSWEEP_AGENT_RUN_HEALTH_CHECK_H_
#define POWERSWEEP_AGENT_RUN_HEALTH_CHECK_H_

#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/platform/platform.h"
#include "common/clock.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

struct HealthCheckOptions {
  double max_temp_c = 95;  // --health_max_temp_c
  absl::Duration reread_after = absl::Milliseconds(200);
};

// Whether `platform` describes a power rail that is not modeled.
bool HasPowerRails(Platform* platform);

class HealthChecker {
 public:
  // `platform` and `clock` must outlive the checker.
  HealthChecker(Platform* platform, Clock* clock, HealthCheckOptions options);

  // One check. `idle`: a registration or heartbeat check, whose pass ends
  // a mark; false for the check of an assignment.
  v1::DeviceHealth Check(bool idle);
  // Fails checks with `reason` until the next passing idle check.
  void MarkUnhealthy(const std::string& reason);
  // The verdict of the latest check; nullopt before the first.
  std::optional<v1::DeviceHealth> LastVerdict();

 private:
  // The sensor part of a check: "" when it passes, else why not.
  std::string CheckSensors() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::TelemetrySample Read() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Platform* const platform_;
  Clock* const clock_;
  const HealthCheckOptions options_;
  const bool power_rails_;
  const int64_t start_ns_;
  absl::Mutex mu_;
  std::string mark_ ABSL_GUARDED_BY(mu_);
  std::optional<v1::DeviceHealth> last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_HEALTH_CHECK_H_
