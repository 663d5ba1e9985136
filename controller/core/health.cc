// Fleet::Impl: the agents' health checks. An agent checks itself at
// registration, in every heartbeat while idle and before it accepts an
// assignment (agent/run/health_check.h). The registry keeps each session's
// latest check (dispatch skips a device that fails it: registry.cc
// IdleAgents); the store keeps it when it changes, and the change is
// logged.
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {
namespace {

// Same verdict and reason (the check time may differ).
bool SameHealth(const std::optional<v1::DeviceHealth>& a,
                const v1::DeviceHealth& b) {
  return a.has_value() && a->healthy() == b.healthy() &&
         a->reason() == b.reason();
}

}  // namespace

void Fleet::Impl::OnHealth(const std::string& device_id,
                           const AgentConnection* conn,
                           const v1::DeviceHealth& health) {
  std::optional<SessionView> view = registry.View(device_id, conn);
  if (!view) return;
  // Cheap common case: the verdict did not change; only the registry
  // learns the time of the check.
  if (SameHealth(view->health, health)) {
    registry.SetHealth(device_id, conn, health);
    return;
  }
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    view = registry.View(device_id, conn);
    if (!view) return;
    registry.SetHealth(device_id, conn, health);
    SaveHealthLocked(device_id, view->health, health);
    if (health.healthy()) DispatchLocked(&out, device_id);
  }
  Flush(std::move(out));
}

void Fleet::Impl::SaveHealthLocked(
    const std::string& device_id,
    const std::optional<v1::DeviceHealth>& before,
    const v1::DeviceHealth& health) {
  absl::Status st = store->SaveDeviceHealth(device_id, health);
  if (!st.ok()) {
    PS_LOG(ERROR) << "cannot store the health of " << device_id << ": " << st;
  }
  if (!health.healthy()) {
    PS_LOG(WARNING) << "device " << device_id
                    << " failed its health check: " << health.reason()
                    << "; no runs go to it until it passes";
  } else if (before.has_value() && !before->healthy()) {
    PS_LOG(INFO) << "device " << device_id
                 << " passes its health check again; it takes runs";
  }
}

}  // namespace powersweep
