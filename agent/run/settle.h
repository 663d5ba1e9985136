// Settling before a run, and the conditions the run starts under
// (RunConditions): the board's temperature and idle power right before the
// workload starts, how long the agent waited for the board to cool, and
// the device's identity (serial, kernel, L4T, module, nvpmodel).
//
// The board temperature of a sample is the hottest of its temperature
// sensors (PMIC sensors excluded: on Jetson they read a constant 100 C).
// The idle reference is the lowest board temperature the agent has seen
// while idle (before runs, during settles): a settle with temp_band_c
// waits until the board is at most reference + band, reading the board
// once a second, for at most max_wait_s; a settle with `seconds` waits
// that long. Without a settle the board is read once. The idle power is
// the mean of the readings' total power.
//
// Thread-compatible: one run settles at a time (RunExecutor serializes).
#ifndef POWERSWEEP_AGENT_RUN_SETTLE_H_
#define POWERSWEEP_AGENT_RUN_SETTLE_H_

#include <functional>
#include <optional>

#include "agent/platform/platform.h"
#include "common/clock.h"
#include "common/sample_readings.h"
#include "powersweep/v1/run.pb.h"
#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

class IdleReference {
 public:
  void Observe(double celsius);
  std::optional<double> celsius() const { return celsius_; }

 private:
  std::optional<double> celsius_;
};

// Reads the board through `platform` per `settle` (unset: one reading) and
// returns the conditions (device identity included). `cancelled` is
// polled between readings: when it returns true the wait ends at once and
// the outcome says "cancelled while settling".
v1::RunConditions SettleBoard(const v1::Settle& settle, Platform* platform,
                              Clock* clock, IdleReference* reference,
                              const std::function<bool()>& cancelled);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUN_SETTLE_H_
