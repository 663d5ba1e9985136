// FleetCounters: what Fleet counts on its busy paths, for the controller's
// /metrics page (controller/metrics/). Each count is one relaxed atomic
// add on the path (per data batch, per lease, per dispatch pass; never per
// row), and the page reads them when it is scraped. AgentCounts: the
// connected agents by state, counted on demand (AgentRegistry::Counts).
//
// Thread-safe: every member is atomic (Histogram is thread-safe).
#ifndef POWERSWEEP_CONTROLLER_CORE_FLEET_COUNTERS_H_
#define POWERSWEEP_CONTROLLER_CORE_FLEET_COUNTERS_H_

#include <atomic>
#include <cstdint>

#include "common/metrics/histogram.h"

namespace powersweep {

struct FleetCounters {
  // Data batches from agents, by what happened to them: stored; already
  // stored (acknowledged again); dropped (of a run or attempt the device no
  // longer holds; acknowledged without storing); failed (the store refused
  // them; not acknowledged, the agent sends them again).
  std::atomic<int64_t> batches_stored{0};
  std::atomic<int64_t> batches_duplicate{0};
  std::atomic<int64_t> batches_dropped{0};
  std::atomic<int64_t> batches_failed{0};
  // Batches and results refused for their contents (the run failed).
  std::atomic<int64_t> batches_rejected{0};
  // Rows in the stored batches.
  std::atomic<int64_t> minibatch_rows{0};
  std::atomic<int64_t> telemetry_rows{0};
  // Runs leased to agents (each AssignRun sent for a run).
  std::atomic<int64_t> runs_leased{0};
  // Wall time of each dispatch pass that found idle agents: the store's
  // pending-run queries and the leases (seconds).
  Histogram dispatch_seconds{Histogram::LatencyBounds()};
};

// The connected agents. An agent counts as healthy when its latest health
// check passed (or it reported none yet), busy while it holds a run.
struct AgentCounts {
  int64_t connected = 0;
  int64_t healthy = 0;
  int64_t drained = 0;
  int64_t busy = 0;
};

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_CORE_FLEET_COUNTERS_H_
