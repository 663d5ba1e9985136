// Fleet::Impl: ending sessions and recovering the runs they held; at a
// controller's start, the sweeps it resumes.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {

void Fleet::Impl::EndSession(const std::string& device_id,
                             const AgentConnection* conn,
                             const std::string& cause) {
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    std::optional<AgentEntry> gone = registry.Remove(device_id, conn);
    if (!gone.has_value()) {
      PS_LOG(DEBUG) << "ignoring the end of a replaced session of "
                    << device_id;
      return;
    }
    if (auto u = unconfirmed.find(device_id); u != unconfirmed.end()) {
      u->second = clock->Now();
    }
    // `devices` shows when it went and when it was last heard.
    absl::Status saved = store->SaveDeviceDisconnected(
        device_id, gone->last_message, clock->Now());
    if (!saved.ok()) {
      PS_LOG(WARNING) << "cannot record that " << device_id
                      << " disconnected: " << saved;
    }
    const int64_t run_id = gone->current_run_id;
    PS_LOG(INFO) << cause
                 << (run_id != 0 ? absl::StrCat(" holding run ", run_id)
                                 : std::string(" while idle"));
    if (run_id != 0) {
      absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
      if (!run.ok()) {
        PS_LOG(ERROR) << "cannot read run " << run_id << " of " << device_id
                      << ": " << run.status();
      } else {
        ReleaseLostRun(*run, device_id, cause, "");
      }
    }
    DispatchLocked(&out);
  }
  Flush(std::move(out));
}

void Fleet::Impl::ReleaseLostRun(const v1::RunStatus& run,
                                 const std::string& device_id,
                                 const std::string& cause,
                                 const std::string& running_reason) {
  const int64_t run_id = run.spec().run_id();
  if (run.device_id() != device_id) {
    PS_LOG(WARNING) << "run " << run_id << " belongs to " << run.device_id()
                    << ", not " << device_id << "; leaving it";
    return;
  }
  const absl::Time now = clock->Now();
  if (run.state() == v1::RUN_STATE_LEASED) {
    const std::string reason = absl::StrCat(cause, " before the run started");
    absl::Status st = store->TransitionRun(run_id, v1::RUN_STATE_PENDING,
                                           device_id, reason, now);
    if (!st.ok()) {
      PS_LOG(ERROR) << "cannot put run " << run_id << " back: " << st;
      return;
    }
    PS_LOG(INFO) << "run " << run_id << " back to pending: " << reason;
    return;
  }
  if (run.state() != v1::RUN_STATE_RUNNING) return;
  const std::string reason = running_reason.empty()
                                 ? absl::StrCat(cause, " during the run")
                                 : running_reason;
  absl::Status st = store->TransitionRun(run_id, v1::RUN_STATE_FAILED,
                                         device_id, reason, now);
  if (!st.ok()) {
    PS_LOG(ERROR) << "cannot fail run " << run_id << ": " << st;
    return;
  }
  PS_LOG(INFO) << "run " << run_id << " failed: " << reason;
  RetryIfAllowed(run.spec(), reason);
}

void Fleet::Impl::RetryIfAllowed(const v1::RunSpec& spec,
                                 const std::string& reason) {
  const int64_t run_id = spec.run_id();
  absl::StatusOr<v1::SweepSpec> sweep = store->GetSweepSpec(spec.sweep_id());
  if (!sweep.ok()) {
    PS_LOG(ERROR) << "cannot read sweep " << spec.sweep_id() << " of run "
                  << run_id << " to decide a retry: " << sweep.status();
    return;
  }
  const int attempt = spec.attempt() > 0 ? spec.attempt() : 1;
  if (attempt > sweep->max_retries()) {
    PS_LOG(INFO) << "run " << run_id << " failed on attempt " << attempt
                 << "; no retries left (max_retries " << sweep->max_retries()
                 << ")";
    return;
  }
  absl::Status st = store->TransitionRun(
      run_id, v1::RUN_STATE_PENDING, "",
      absl::StrCat("retry ", attempt, " of ", sweep->max_retries(),
                   " after: ", reason),
      clock->Now());
  if (!st.ok()) {
    PS_LOG(ERROR) << "cannot re-queue run " << run_id << ": " << st;
    return;
  }
  PS_LOG(INFO) << "run " << run_id << " re-queued as attempt " << attempt + 1;
}

void Fleet::Impl::ReleaseExpiredLeases(Outbox* out) {
  const absl::Time now = clock->Now();
  std::vector<AgentEntry> expired = registry.ExpiredLeases(now);
  if (expired.empty()) return;
  absl::MutexLock lock(&run_mu);
  for (const AgentEntry& e : expired) {
    const std::string& device_id = e.identity.device_id();
    std::optional<SessionView> view = registry.View(device_id, e.conn.get());
    if (!view || view->current_run_id != e.current_run_id) continue;
    const int64_t run_id = e.current_run_id;
    registry.SetCurrentRun(device_id, e.conn.get(), 0);
    // Until it says otherwise, the agent may be executing it after all.
    registry.SetForeignRun(device_id, e.conn.get(), run_id);
    absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
    if (!run.ok() || run->state() != v1::RUN_STATE_LEASED ||
        run->device_id() != device_id) {
      continue;
    }
    const std::string reason = absl::StrCat(
        "agent ", device_id, " did not answer the assignment within ",
        absl::FormatDuration(options.lease_timeout));
    absl::Status st =
        store->TransitionRun(run_id, v1::RUN_STATE_PENDING, device_id, reason,
                             now);
    if (!st.ok()) {
      PS_LOG(ERROR) << "cannot put run " << run_id << " back: " << st;
      continue;
    }
    PS_LOG(WARNING) << "run " << run_id << " back to pending: " << reason;
    MissedLeases& m = missed_leases[device_id];
    ++m.missed;
    const absl::Duration hold = std::min(
        options.lease_timeout * (int64_t{1} << std::min(m.missed - 1, 20)),
        absl::Minutes(10));
    m.hold_until = now + hold;
    PS_LOG(WARNING) << "agent " << device_id << " let " << m.missed
                    << " assignment(s) in a row expire; it gets no run for "
                    << absl::FormatDuration(hold)
                    << " (or until it answers one)";
    QueueCancel(device_id, e.conn, run_id,
                absl::StrCat("the assignment of run ", run_id,
                             " expired unanswered"),
                out);
  }
  DispatchLocked(out);
}

void Fleet::Impl::ExpireUnconfirmedLocked(absl::Time now, int make_room) {
  std::vector<std::pair<absl::Time, std::string>> gone;
  for (const auto& [id, since] : unconfirmed) {
    if (since == absl::InfiniteFuture()) continue;  // connected
    if (make_room > 0 || now - since >= options.unconfirmed_device_ttl) {
      gone.emplace_back(since, id);
    }
  }
  std::sort(gone.begin(), gone.end());
  if (make_room > 0 && gone.size() > static_cast<size_t>(make_room)) {
    gone.resize(make_room);
  }
  for (const auto& [since, id] : gone) {
    absl::StatusOr<bool> deleted = store->DeleteUnusedDevice(id);
    if (!deleted.ok()) {
      PS_LOG(WARNING) << "cannot delete unconfirmed device " << id << ": "
                      << deleted.status();
      continue;
    }
    unconfirmed.erase(id);
    if (*deleted) {
      known_devices.erase(id);
      drained_devices.erase(id);
      forgotten_devices.erase(id);
      PS_LOG(INFO) << "device " << id
                   << " registered without a certificate, never ran a run "
                      "and has been gone since "
                   << absl::FormatTime(since) << "; deleted";
    }
  }
}

void Fleet::Impl::LeaseAnsweredLocked(const std::string& device_id) {
  if (missed_leases.erase(device_id) > 0) {
    PS_LOG(INFO) << "agent " << device_id
                 << " answers its assignments again";
  }
}

void Fleet::Impl::ReleaseOrphans() {
  absl::ReleasableMutexLock lock(&run_mu);
  const absl::Time now = clock->Now();
  if (now < next_unheld_scan) return;
  next_unheld_scan = now + options.reconnect_grace / 3;
  absl::StatusOr<std::vector<v1::RunStatus>> active = store->ListActiveRuns("");
  if (!active.ok()) {
    PS_LOG(ERROR) << "cannot list the active runs: " << active.status();
    return;
  }
  std::map<int64_t, absl::Time> still;
  Outbox out;
  for (const v1::RunStatus& run : *active) {
    const int64_t run_id = run.spec().run_id();
    std::optional<int64_t> held = registry.CurrentRun(run.device_id());
    if (held == run_id) {
      FailIfOverdueLocked(run, now, &out);
      continue;
    }
    auto seen = unheld_since.find(run_id);
    const absl::Time since = seen != unheld_since.end() ? seen->second : now;
    if (now - since < options.reconnect_grace) {
      if (seen == unheld_since.end()) {
        PS_LOG(INFO) << "run " << run.spec().run_id() << " is "
                     << v1::RunState_Name(run.state()) << " on "
                     << run.device_id() << ", which does not hold it; it "
                     << "has " << absl::FormatDuration(options.reconnect_grace)
                     << " to come back and report it";
      }
      still[run_id] = since;
      continue;
    }
    const bool connected = held.has_value();
    const std::string cause = absl::StrCat(
        connected ? "agent " : "the controller restarted and agent ",
        run.device_id(),
        connected ? " did not report the run within "
                  : " did not come back within ",
        absl::FormatDuration(options.reconnect_grace));
    ReleaseLostRun(run, run.device_id(), cause, cause);
  }
  unheld_since = std::move(still);
  ExpireUnconfirmedLocked(now);
  if (!out.empty()) DispatchLocked(&out);
  lock.Release();
  Flush(std::move(out));
}

absl::Time Fleet::Impl::RunDeadline(const v1::RunStatus& run) const {
  if (run.state() != v1::RUN_STATE_RUNNING || run.started_unix_ms() <= 0) {
    return absl::InfiniteFuture();
  }
  // The agent's own timeout covers the workload; a settle wait comes
  // before it.
  const double settle_s = std::max(run.spec().settle().max_wait_s(),
                                   run.spec().settle().seconds());
  const double timeout_s = run.spec().timeout_s() > 0 ? run.spec().timeout_s()
                                                        : 86400;
  return absl::FromUnixMillis(run.started_unix_ms()) +
         absl::Seconds(timeout_s + std::max(0.0, settle_s)) +
         options.run_deadline_margin;
}

void Fleet::Impl::FailIfOverdueLocked(const v1::RunStatus& run,
                                      absl::Time now, Outbox* out) {
  const absl::Time deadline = RunDeadline(run);
  if (now <= deadline) return;
  std::optional<AgentEntry> agent = registry.Get(run.device_id());
  if (!agent || agent->current_run_id != run.spec().run_id()) return;
  FailHeldRunLocked(
      run.device_id(), agent->conn, run.spec().run_id(),
      absl::StrCat("no result from agent ", run.device_id(),
                   " within the run's timeout (", run.spec().timeout_s(),
                   " s) plus the controller's margin (",
                   absl::FormatDuration(options.run_deadline_margin), ")"),
      out);
}

}  // namespace powersweep

namespace powersweep {

std::vector<std::string> Fleet::LogUnfinishedSweeps() {
  Impl& im = *impl_;
  std::vector<std::string> lines;
  absl::StatusOr<std::vector<v1::SweepStatus>> sweeps = im.store->ListSweeps();
  if (!sweeps.ok()) {
    PS_LOG(ERROR) << "cannot list the sweeps to resume: " << sweeps.status();
    return lines;
  }
  for (const v1::SweepStatus& s : *sweeps) {
    if (s.finished()) continue;
    std::string line = absl::StrCat("resuming sweep ", s.sweep_id(), " '",
                                    s.name(), "': ", s.pending(), " pending, ",
                                    s.active(), " in flight");
    if (s.active() > 0) {
      absl::StrAppend(&line, " (their agents have ",
                      absl::FormatDuration(im.options.reconnect_grace),
                      " to reconnect)");
    }
    PS_LOG(INFO) << line;
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace powersweep
