// Fleet::Impl: reconciling the store with what agents report (Register,
// Heartbeat, AssignReply), so that no run stays stuck on an agent that does
// not have it and no run an agent finished is thrown away.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {
namespace {

const v1::RunProgress* FindProgress(const v1::Register& reg, int64_t run_id) {
  for (const v1::RunProgress& p : reg.runs()) {
    if (p.run_id() == run_id) return &p;
  }
  return nullptr;
}

}  // namespace

void Fleet::Impl::ReconcileRegister(
    const v1::Register& reg, const std::shared_ptr<AgentConnection>& conn,
    Outbox* out) {
  const std::string& device_id = reg.identity().device_id();
  absl::StatusOr<std::vector<v1::RunStatus>> active =
      store->ListActiveRuns(device_id);
  if (!active.ok()) {
    PS_LOG(ERROR) << "cannot list active runs of " << device_id << ": "
                  << active.status();
    return;
  }
  int64_t kept = 0;
  for (const v1::RunStatus& run : *active) {
    const int64_t run_id = run.spec().run_id();
    const int32_t attempt = run.spec().attempt();
    const v1::RunProgress* p = FindProgress(reg, run_id);
    const bool same_attempt =
        p != nullptr && (p->attempt() == attempt || p->attempt() == 0);
    const bool executing =
        reg.active_run_id() == run_id && (p == nullptr || same_attempt);
    const bool finished = same_attempt && p->finished();
    if ((executing || finished) && kept == 0) {
      registry.SetCurrentRun(device_id, conn.get(), run_id, attempt);
      kept = run_id;
      PS_LOG(INFO) << device_id << (executing ? " still executes run "
                                              : " holds the finished run ")
                   << run_id << " (attempt " << attempt << "); "
                   << (executing ? "it continues"
                                 : "waiting for its spooled data");
      continue;
    }
    const std::string cause = absl::StrCat("agent ", device_id, " restarted");
    std::string running_reason;
    if (same_attempt) {
      running_reason = absl::StrCat(
          "agent ", device_id,
          " restarted during the run; the workload ended with it (",
          p->last_seq(), " batches were spooled)");
    } else {
      running_reason = absl::StrCat("agent ", device_id,
                                    " came back without the run (it "
                                    "restarted and its spool had none of it)");
    }
    ReleaseLostRun(run, device_id, cause, running_reason);
  }
  for (const v1::RunProgress& p : reg.runs()) {
    if (p.run_id() == kept || !p.executing()) continue;
    HandleForeignRun(device_id, conn, p.run_id(),
                     "it executes a run the controller does not hold on it",
                     out);
  }
  if (reg.active_run_id() != 0 && reg.active_run_id() != kept &&
      FindProgress(reg, reg.active_run_id()) == nullptr) {
    HandleForeignRun(device_id, conn, reg.active_run_id(),
                     "it executes a run the controller does not hold on it",
                     out);
  }
}

void Fleet::Impl::HandleForeignRun(const std::string& device_id,
                                   const std::shared_ptr<AgentConnection>& conn,
                                   int64_t run_id, const std::string& why,
                                   Outbox* out) {
  registry.SetForeignRun(device_id, conn.get(), run_id);
  PS_LOG(INFO) << device_id << " reports run " << run_id << " (" << why
               << "); cancelling it there";
  QueueCancel(device_id, conn, run_id,
              absl::StrCat("the controller no longer holds run ", run_id,
                           " for ", device_id),
              out);
}

void Fleet::Impl::OnHeartbeat(const std::string& device_id,
                              const AgentConnection* conn,
                              const v1::Heartbeat& hb) {
  if (hb.has_health()) OnHealth(device_id, conn, hb.health());
  if (hb.has_latest()) {
    registry.SetLatestSample(device_id, conn, hb.latest(), clock->Now());
  }
  std::optional<SessionView> view = registry.View(device_id, conn);
  if (!view) return;
  const int64_t reported = hb.current_run_id();
  // Cheap common case: the agent does what the controller thinks.
  if (view->foreign_run_id == 0 &&
      (reported == 0 || reported == view->current_run_id)) {
    return;
  }
  if (view->foreign_run_id != 0 && reported == view->foreign_run_id) return;
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    view = registry.View(device_id, conn);
    if (!view) return;
    if (view->foreign_run_id != 0 && reported != view->foreign_run_id) {
      // The run the controller asked it to drop has ended there.
      registry.SetForeignRun(device_id, conn, 0);
      PS_LOG(INFO) << device_id << " no longer executes run "
                   << view->foreign_run_id << "; it takes runs again";
      if (reported == 0) DispatchLocked(&out, device_id);
    }
    if (reported != 0 && reported != view->current_run_id &&
        reported != view->foreign_run_id) {
      HandleForeignRun(device_id, view->conn, reported,
                       "its heartbeat names a run the controller does not "
                       "hold on it",
                       &out);
    }
  }
  Flush(std::move(out));
}

void Fleet::Impl::OnAssignReply(const std::string& device_id,
                                const AgentConnection* conn,
                                const v1::AssignReply& reply) {
  const int64_t run_id = reply.run_id();
  if (reply.accepted()) {
    registry.ClearLeaseDeadline(device_id, conn, run_id);
    absl::MutexLock lock(&run_mu);
    if (registry.View(device_id, conn)) LeaseAnsweredLocked(device_id);
    return;
  }
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    std::optional<SessionView> view = registry.View(device_id, conn);
    if (!view) return;
    LeaseAnsweredLocked(device_id);
    const std::string reason = absl::StrCat("agent ", device_id,
                                            " rejected the assignment: ",
                                            reply.reason());
    PS_LOG(WARNING) << "run " << run_id << ": " << reason;
    if (view->current_run_id == run_id) {
      registry.SetCurrentRun(device_id, conn, 0);
      absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
      if (run.ok() && run->state() == v1::RUN_STATE_LEASED &&
          run->device_id() == device_id) {
        absl::Status st = store->TransitionRun(run_id, v1::RUN_STATE_PENDING,
                                               device_id, reason,
                                               clock->Now());
        if (!st.ok()) {
          PS_LOG(ERROR) << "cannot put run " << run_id << " back: " << st;
        }
      }
    }
    if (reply.busy_run_id() != 0) {
      // Possibly an older attempt of this very run.
      HandleForeignRun(device_id, view->conn, reply.busy_run_id(),
                       "it rejected an assignment as busy with it", &out);
    } else if (reply.has_health() && !reply.health().healthy()) {
      // It failed its health check: no runs until a heartbeat says it
      // passes again (health.cc).
      registry.SetHealth(device_id, conn, reply.health());
      SaveHealthLocked(device_id, view->health, reply.health());
    } else {
      // Shutting down or otherwise unable: no more runs for this session.
      registry.MarkUnassignable(device_id, conn);
    }
    DispatchLocked(&out);
  }
  Flush(std::move(out));
}

}  // namespace powersweep
