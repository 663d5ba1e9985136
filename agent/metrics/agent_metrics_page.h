// The agent's /metrics page (Prometheus text format), from the agent's
// state and its latest reading. Metric names and meanings are listed in
// docs/observability.md; every reading of a twin carries
// provenance="simulated" where the sample says so (power, rails) and the
// info metric names the platform. Pure; thread-safe.
#ifndef POWERSWEEP_AGENT_METRICS_AGENT_METRICS_PAGE_H_
#define POWERSWEEP_AGENT_METRICS_AGENT_METRICS_PAGE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "agent/run/latest_reading.h"
#include "powersweep/v1/device.pb.h"

namespace powersweep {

// What the agent is doing, read when the page is scraped.
struct AgentStatus {
  bool connected = false;     // its session to the controller is registered
  int64_t registrations = 0;  // successful registrations since start
  int64_t run_id = 0;         // the run it executes; 0 idle
  int64_t spooled = 0;        // messages not yet acknowledged
  // The latest health check (agent/run/health_check.h): nullopt before the
  // first (or without a checker).
  std::optional<bool> healthy;
};

// The page. `now_mono_ns` is Clock::MonotonicNanos() now (for the age of
// the reading).
std::string RenderAgentMetrics(const v1::DeviceIdentity& identity,
                               const AgentStatus& status,
                               const Reading& reading, int64_t now_mono_ns);

}  // namespace powersweep

#endif  // POWERSWEEP_AGENT_METRICS_AGENT_METRICS_PAGE_H_
