// The controller's /metrics page (Prometheus text format): runs and sweeps
// in the database by state, the connected agents by state, what ingest and
// dispatch counted (controller/core/fleet_counters.h) and the database's
// errors. Metric names and meanings are listed in docs/observability.md.
//
// Rendering reads the counters and the registry (no store access) and
// asks the store once for the sweeps' run counts (Store::ListSweeps: one
// grouped query per sweep); when that read fails the run and sweep
// gauges are left out and powersweep_store_up is 0.
//
// Thread-safe as its sources are (Fleet and the store are).
#ifndef POWERSWEEP_CONTROLLER_METRICS_CONTROLLER_METRICS_PAGE_H_
#define POWERSWEEP_CONTROLLER_METRICS_CONTROLLER_METRICS_PAGE_H_

#include <string>

#include "common/net/guarded_listener.h"
#include "controller/core/fleet.h"
#include "storage/sqlite_db.h"
#include "storage/store.h"

namespace powersweep {

struct ControllerMetricsSources {
  Store* store = nullptr;
  const Fleet* fleet = nullptr;
  // The database's errors (SqliteStore::error_counts()); null: not shown.
  const SqliteErrorCounts* store_errors = nullptr;
  // The controller's listener (connections accepted, refused, accept
  // errors, descriptors); null: not shown.
  const GuardedListener* listener = nullptr;
};

// The page. Every source but store_errors must be set.
std::string RenderControllerMetrics(const ControllerMetricsSources& sources);

}  // namespace powersweep

#endif  // POWERSWEEP_CONTROLLER_METRICS_CONTROLLER_METRICS_PAGE_H_
