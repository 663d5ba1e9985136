// A Runtime that simulates its device (the twin, agent/runtime/twin) also
// implements SimulatedRun: it produces the run's telemetry itself, in the
// run's simulated time, so the executor starts no Sampler, hands it the
// sample callback before Start, and after Wait takes the run's duration and
// energy from it (simulated seconds, like its records and samples).
#ifndef POWERSWEEP_AGENT_RUNTIME_SIMULATED_RUN_H_
#define POWERSWEEP_AGENT_RUNTIME_SIMULATED_RUN_H_

#include <functional>

#include "powersweep/v1/telemetry.pb.h"

namespace powersweep {

class SimulatedRun {
 public:
  using SampleCallback = std::function<void(const v1::TelemetrySample&)>;
  virtual ~SimulatedRun() = default;
  virtual void SetTelemetry(double hz, SampleCallback on_sample) = 0;
  virtual double SimulatedDurationS() const = 0;
  virtual double EnergyJ() const = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_RUNTIME_SIMULATED_RUN_H_
