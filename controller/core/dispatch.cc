// Fleet::Impl: handing pending runs to idle agents.
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"
#include "controller/core/scheduler.h"

namespace powersweep {
namespace {

// Pending runs considered per dispatch, oldest first.
constexpr int kPendingScanLimit = 100000;

}  // namespace

void Fleet::Impl::DispatchLocked(Outbox* out) {
  std::vector<AgentEntry> idle = registry.Idle();
  if (idle.empty()) return;
  absl::StatusOr<std::vector<v1::RunSpec>> pending =
      store->ListPendingRuns(kPendingScanLimit);
  if (!pending.ok()) {
    PS_LOG(ERROR) << "dispatch: cannot list pending runs: " << pending.status();
    return;
  }
  std::vector<bool> taken(pending->size(), false);
  for (const AgentEntry& agent : idle) {
    const std::string& device_id = agent.identity.device_id();
    for (;;) {
      const int i =
          PickRun(agent.identity, agent.capabilities, *pending, taken);
      if (i < 0) break;
      taken[i] = true;
      const v1::RunSpec& spec = (*pending)[i];
      absl::Status st = store->TransitionRun(
          spec.run_id(), v1::RUN_STATE_LEASED, device_id, "", clock->Now());
      if (!st.ok()) {  // e.g. cancelled since it was listed
        PS_LOG(WARNING) << "cannot lease run " << spec.run_id() << " to "
                        << device_id << ": " << st;
        continue;
      }
      // run_mu keeps the session as it was when Idle() was read.
      registry.SetCurrentRun(device_id, agent.conn.get(), spec.run_id());
      Outgoing assign{device_id, agent.conn, {}};
      *assign.msg.mutable_assign()->mutable_spec() = spec;
      out->push_back(std::move(assign));
      PS_LOG(INFO) << "assigned run " << spec.run_id() << " (sweep "
                   << spec.sweep_id() << ", attempt " << spec.attempt()
                   << ") to " << device_id;
      break;
    }
  }
}

void Fleet::Impl::Flush(Outbox out) {
  while (!out.empty()) {
    Outbox failed;
    for (Outgoing& o : out) {
      if (!o.conn->Send(o.msg) && o.msg.has_assign()) {
        failed.push_back(std::move(o));
      }
    }
    out.clear();
    if (failed.empty()) return;
    absl::MutexLock lock(&run_mu);
    for (const Outgoing& f : failed) {
      const int64_t run_id = f.msg.assign().spec().run_id();
      registry.MarkUnassignable(f.device_id, f.conn.get());
      std::optional<AgentEntry> entry = registry.Get(f.device_id);
      if (!entry || entry->conn != f.conn || entry->current_run_id != run_id) {
        continue;  // the session ended meanwhile and released the run
      }
      registry.SetCurrentRun(f.device_id, f.conn.get(), 0);
      absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
      if (!run.ok() || run->state() != v1::RUN_STATE_LEASED) continue;
      const std::string reason =
          absl::StrCat("could not send the assignment to agent ", f.device_id);
      absl::Status st = store->TransitionRun(run_id, v1::RUN_STATE_PENDING,
                                             f.device_id, reason, clock->Now());
      if (!st.ok()) {
        PS_LOG(ERROR) << "cannot put run " << run_id << " back: " << st;
      } else {
        PS_LOG(INFO) << "run " << run_id << " back to pending: " << reason;
      }
    }
    DispatchLocked(&out);
  }
}

}  // namespace powersweep
