// Fleet::Impl: handing pending runs to idle agents.
//
// Idle agents are grouped by what they can serve (class, runtimes, models,
// datasets, cores); each group asks the store once for as many pending
// runs as it has agents (Store::ListPendingRunsFor, an indexed query that
// decodes only the rows it returns). The cost of a dispatch therefore
// grows with the idle agents, not with the pending runs. Runs placed on
// named devices (RunSpec.devices) match only those devices' sessions.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {
namespace {

// Whether `device_id` may take `spec` (RunSpec.devices; empty = any).
bool PlacedOn(const v1::RunSpec& spec, const std::string& device_id) {
  return spec.devices().empty() ||
         std::find(spec.devices().begin(), spec.devices().end(), device_id) !=
             spec.devices().end();
}

}  // namespace

void Fleet::Impl::DispatchLocked(Outbox* out, const std::string& device_id) {
  std::vector<IdleAgent> idle = registry.IdleAgents(device_id);
  if (!missed_leases.empty()) {
    // Agents that let assignments expire wait out their hold.
    const absl::Time now = clock->Now();
    std::vector<IdleAgent> kept;
    for (IdleAgent& a : idle) {
      auto it = missed_leases.find(a.device_id);
      if (it == missed_leases.end() || now >= it->second.hold_until) {
        kept.push_back(std::move(a));
      }
    }
    idle = std::move(kept);
  }
  if (idle.empty()) return;
  const int64_t started_ns = clock->MonotonicNanos();
  absl::Cleanup observe = [&] {
    counters.dispatch_seconds.Observe(
        static_cast<double>(clock->MonotonicNanos() - started_ns) * 1e-9);
  };
  // Agents that serve the same, in device_id order within a group.
  std::map<std::string, std::vector<const IdleAgent*>> groups;
  for (const IdleAgent& agent : idle) {
    groups[agent.profile->key].push_back(&agent);
  }
  std::set<int64_t> taken;  // leased by an earlier group of this dispatch
  const absl::Time now = clock->Now();
  for (auto& [key, group] : groups) {
    PendingFilter filter = group.front()->profile->filter;
    for (const IdleAgent* agent : group) {
      filter.device_ids.push_back(agent->device_id);
    }
    filter.exclude.assign(taken.begin(), taken.end());
    absl::StatusOr<std::vector<v1::RunSpec>> pending = store->ListPendingRunsFor(
        filter, static_cast<int>(group.size()));
    if (!pending.ok()) {
      PS_LOG(ERROR) << "dispatch: cannot list pending runs: "
                    << pending.status();
      return;
    }
    // Oldest run first, to the first free agent it may go to. A run placed
    // on a device that already got one waits; the agents left over then
    // ask for their own runs (only then: untargeted queues never do).
    std::vector<const IdleAgent*> free(group.begin(), group.end());
    bool skipped = false;
    for (const v1::RunSpec& spec : *pending) {
      auto it = std::find_if(free.begin(), free.end(), [&](const IdleAgent* a) {
        return PlacedOn(spec, a->device_id);
      });
      if (it == free.end()) {
        skipped = true;
        continue;
      }
      if (LeaseLocked(**it, spec, now, out)) {
        taken.insert(spec.run_id());
        free.erase(it);
      }
    }
    if (!skipped) continue;
    for (const IdleAgent* agent : free) {
      PendingFilter own = group.front()->profile->filter;
      own.device_ids = {agent->device_id};
      own.exclude.assign(taken.begin(), taken.end());
      absl::StatusOr<std::vector<v1::RunSpec>> mine =
          store->ListPendingRunsFor(own, 1);
      if (!mine.ok()) {
        PS_LOG(ERROR) << "dispatch: cannot list pending runs: "
                      << mine.status();
        return;
      }
      if (!mine->empty() && LeaseLocked(*agent, mine->front(), now, out)) {
        taken.insert(mine->front().run_id());
      }
    }
  }
}

bool Fleet::Impl::LeaseLocked(const IdleAgent& agent, const v1::RunSpec& spec,
                              absl::Time now, Outbox* out) {
  absl::Status st = store->TransitionRun(spec.run_id(), v1::RUN_STATE_LEASED,
                                         agent.device_id, "", now);
  if (!st.ok()) {  // e.g. the database is locked; the tick retries
    PS_LOG(WARNING) << "cannot lease run " << spec.run_id() << " to "
                    << agent.device_id << ": " << st;
    return false;
  }
  // run_mu keeps the session as it was when it was read.
  registry.SetCurrentRun(agent.device_id, agent.conn.get(), spec.run_id(),
                         spec.attempt());
  registry.SetLeaseDeadline(agent.device_id, agent.conn.get(),
                            now + options.lease_timeout);
  Outgoing assign{agent.device_id, agent.conn, {}};
  *assign.msg.mutable_assign()->mutable_spec() = spec;
  out->push_back(std::move(assign));
  counters.runs_leased.fetch_add(1, std::memory_order_relaxed);
  PS_LOG(INFO) << "assigned run " << spec.run_id() << " (sweep "
               << spec.sweep_id() << ", attempt " << spec.attempt()
               << ") to " << agent.device_id;
  return true;
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
      std::optional<SessionView> view =
          registry.View(f.device_id, f.conn.get());
      if (!view || view->current_run_id != run_id) {
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

void Fleet::Impl::QueueAck(const std::string& device_id,
                           std::shared_ptr<AgentConnection> conn,
                           int64_t run_id, int32_t attempt, int64_t seq,
                           Outbox* out) {
  Outgoing ack{device_id, std::move(conn), {}};
  ack.msg.mutable_ack()->set_run_id(run_id);
  ack.msg.mutable_ack()->set_attempt(attempt);
  ack.msg.mutable_ack()->set_seq(seq);
  out->push_back(std::move(ack));
}

void Fleet::Impl::QueueCancel(const std::string& device_id,
                              std::shared_ptr<AgentConnection> conn,
                              int64_t run_id, const std::string& reason,
                              Outbox* out) {
  Outgoing cancel{device_id, std::move(conn), {}};
  cancel.msg.mutable_cancel()->set_run_id(run_id);
  cancel.msg.mutable_cancel()->set_reason(reason);
  out->push_back(std::move(cancel));
}

}  // namespace powersweep
