// Fleet::Impl: run events and data batches from agents.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/enum_text.h"
#include "common/log.h"
#include "controller/analysis/baseload.h"
#include "controller/core/agent_data_check.h"
#include "controller/core/fleet_impl.h"

namespace powersweep {
namespace {

// Sequence numbers of 1..batches that `have` (ascending) lacks.
std::vector<int64_t> MissingSeqs(const std::vector<int64_t>& have,
                                 int64_t batches) {
  std::vector<int64_t> missing;
  size_t i = 0;
  for (int64_t seq = 1; seq <= batches; ++seq) {
    while (i < have.size() && have[i] < seq) ++i;
    if (i >= have.size() || have[i] != seq) missing.push_back(seq);
  }
  return missing;
}

}  // namespace

void Fleet::Impl::OnRunStarted(const std::string& device_id,
                               const AgentConnection* conn,
                               const v1::RunStarted& msg) {
  const int64_t run_id = msg.run_id();
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    std::optional<SessionView> view = registry.View(device_id, conn);
    if (!view) return;
    if (view->current_run_id != run_id) {
      // E.g. its assignment was released for want of an answer: the
      // agent must not go on with a run someone else may now hold.
      if (view->foreign_run_id != run_id) {
        HandleForeignRun(device_id, view->conn, run_id,
                         "it started a run the controller does not hold on it",
                         &out);
      }
    } else {
      registry.ClearLeaseDeadline(device_id, conn, run_id);
      LeaseAnsweredLocked(device_id);
      unconfirmed.erase(device_id);  // it runs: a device, not a stray id
      absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
      if (!run.ok()) {
        PS_LOG(ERROR) << "cannot read run " << run_id << ": " << run.status();
      } else if (run->state() == v1::RUN_STATE_LEASED ||
                 run->state() == v1::RUN_STATE_RUNNING) {
        absl::Status st = store->SaveAppliedMode(run_id, msg.applied_mode());
        if (!st.ok()) {
          PS_LOG(ERROR) << "cannot store the applied mode of run " << run_id
                        << ": " << st;
        }
        if (run->state() == v1::RUN_STATE_LEASED) {
          st = store->TransitionRun(run_id, v1::RUN_STATE_RUNNING, device_id,
                                    "", clock->Now());
          if (!st.ok()) {
            PS_LOG(ERROR) << "cannot mark run " << run_id << " running: " << st;
          } else {
            PS_LOG(INFO) << "run " << run_id << " started on " << device_id;
          }
        }
      } else {
        PS_LOG(WARNING) << "run_started of run " << run_id << " from "
                        << device_id << " while it is "
                        << v1::RunState_Name(run->state());
      }
    }
  }
  Flush(std::move(out));
}

void Fleet::Impl::OnBatch(const std::string& device_id,
                          const AgentConnection* conn,
                          const v1::DataBatch& batch) {
  Outbox out;
  std::string rejected;  // why the run's data cannot be stored
  {
    // Shared hold: batches of different agents are stored in parallel, but
    // a run cannot be released (and retried) while its batch is being stored.
    absl::ReaderMutexLock lock(&run_mu);
    std::optional<SessionView> view = registry.View(device_id, conn);
    if (!view) return;
    std::string drop_reason;
    if (view->current_run_id != batch.run_id()) {
      if (AcceptsLateData(device_id, batch.run_id(), batch.attempt())) {
        PS_LOG(INFO) << "storing late batch " << batch.seq() << " of run "
                     << batch.run_id() << " from " << device_id
                     << " (the run was failed for a lost agent)";
      } else {
        drop_reason = "not the run it holds";
      }
    } else if (batch.attempt() != 0 &&
               batch.attempt() != view->current_attempt) {
      drop_reason =
          absl::StrCat("attempt ", batch.attempt(),
                       ", but the run is on attempt ", view->current_attempt);
    }
    if (!drop_reason.empty()) {
      // Data of an attempt the controller gave up on (or already finished):
      // acknowledge without storing so the agent drops it.
      PS_LOG(INFO) << "dropping batch " << batch.seq() << " of run "
                   << batch.run_id() << " from " << device_id << ": "
                   << drop_reason;
      counters.batches_dropped.fetch_add(1, std::memory_order_relaxed);
    } else if (absl::Status bad = CheckAgentBatch(batch); !bad.ok()) {
      rejected = absl::StrCat("agent ", device_id, " sent batch ", batch.seq(),
                              " that cannot be stored: ", bad.message());
    } else {
      absl::StatusOr<IngestOutcome> outcome = store->IngestBatch(batch);
      if (!outcome.ok()) {
        // Not acknowledged: the agent sends it again after its ack timeout.
        PS_LOG(ERROR) << "cannot store batch " << batch.seq() << " of run "
                      << batch.run_id() << " from " << device_id << ": "
                      << outcome.status()
                      << " (not acknowledged; the agent sends it again)";
        counters.batches_failed.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      if (*outcome == IngestOutcome::kConflict) {
        rejected = absl::StrCat("agent ", device_id, " sent batch ",
                                batch.seq(), " again with other contents (",
                                batch.minibatches_size(),
                                " minibatch records, ", batch.telemetry_size(),
                                " telemetry samples); the first is kept");
      } else if (*outcome == IngestOutcome::kDuplicate) {
        PS_LOG(DEBUG) << "batch " << batch.seq() << " of run " << batch.run_id()
                      << " already stored; acknowledging again";
        counters.batches_duplicate.fetch_add(1, std::memory_order_relaxed);
      } else {
        counters.batches_stored.fetch_add(1, std::memory_order_relaxed);
        counters.minibatch_rows.fetch_add(batch.minibatches_size(),
                                          std::memory_order_relaxed);
        counters.telemetry_rows.fetch_add(batch.telemetry_size(),
                                          std::memory_order_relaxed);
      }
    }
    if (rejected.empty()) {
      QueueAck(device_id, view->conn, batch.run_id(), batch.attempt(),
               batch.seq(), &out);
    }
  }
  if (!rejected.empty()) {
    // Failing the run needs run_mu exclusively.
    absl::MutexLock lock(&run_mu);
    std::optional<SessionView> view = registry.View(device_id, conn);
    counters.batches_rejected.fetch_add(1, std::memory_order_relaxed);
    if (view && view->current_run_id == batch.run_id()) {
      FailHeldRunLocked(device_id, view->conn, batch.run_id(), rejected, &out);
    }
    if (view) {
      // Acknowledged so that the agent drops it; nothing of it is stored.
      QueueAck(device_id, view->conn, batch.run_id(), batch.attempt(),
               batch.seq(), &out);
    }
  }
  Flush(std::move(out));
}

void Fleet::Impl::FailHeldRunLocked(
    const std::string& device_id, const std::shared_ptr<AgentConnection>& conn,
    int64_t run_id, const std::string& reason, Outbox* out) {
  PS_LOG(WARNING) << "run " << run_id << ": " << reason;
  registry.SetCurrentRun(device_id, conn.get(), 0);
  absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
  if (!run.ok()) {
    PS_LOG(ERROR) << "cannot read run " << run_id << ": " << run.status();
  } else if (!IsFinal(run->state())) {
    v1::RunStatus failing = *run;
    if (failing.state() == v1::RUN_STATE_LEASED) {
      // It did run: its data arrived.
      absl::Status st = store->TransitionRun(run_id, v1::RUN_STATE_RUNNING,
                                             device_id, "", clock->Now());
      if (st.ok()) failing.set_state(v1::RUN_STATE_RUNNING);
    }
    ReleaseLostRun(failing, device_id, reason, reason);
  }
  refused_runs.insert(run_id);
  // The agent stops it and gets no new run until it reports it ended.
  registry.SetForeignRun(device_id, conn.get(), run_id);
  QueueCancel(device_id, conn, run_id, reason, out);
}

bool Fleet::Impl::AcceptsLateData(const std::string& device_id, int64_t run_id,
                                  int32_t attempt) {
  if (refused_runs.count(run_id) > 0) return false;
  absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
  if (!run.ok() || run->state() != v1::RUN_STATE_FAILED ||
      run->device_id() != device_id ||
      (attempt != 0 && attempt != run->spec().attempt())) {
    return false;
  }
  // A result stored for the attempt: the agent itself ended it.
  return absl::IsNotFound(store->GetRunResult(run_id).status());
}

void Fleet::Impl::CompleteLateRunLocked(
    const std::string& device_id, const std::shared_ptr<AgentConnection>& conn,
    const v1::RunFinished& msg, Outbox* out) {
  const int64_t run_id = msg.result().run_id();
  absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
  absl::StatusOr<std::vector<int64_t>> have = store->ListBatchSeqs(run_id);
  if (!run.ok() || !have.ok()) {
    PS_LOG(ERROR) << "cannot read run " << run_id
                  << " (not acknowledged; the agent sends it again)";
    return;
  }
  const std::vector<int64_t> missing = MissingSeqs(*have, msg.batches());
  if (!missing.empty() || (!have->empty() && have->back() > msg.batches())) {
    if (missing.empty()) {
      QueueAck(device_id, conn, run_id, msg.attempt(), 0, out);
      return;  // its count and its batches disagree: it stays failed
    }
    Outgoing resend{device_id, conn, {}};
    v1::ResendRequest* r = resend.msg.mutable_resend();
    r->set_run_id(run_id);
    r->set_attempt(run->spec().attempt());
    for (int64_t seq : missing) r->add_seqs(seq);
    PS_LOG(INFO) << "late result of failed run " << run_id << " from "
                 << device_id << ": asking for " << missing.size()
                 << " missing batches";
    out->push_back(std::move(resend));
    return;
  }
  const std::string reason =
      absl::StrCat("completed by agent ", device_id,
                   "'s spooled result after the controller had failed it (",
                   run->reason(), ")");
  absl::Status st = store->FinishRun(WithBaseload(*run, msg.result()),
                                     v1::RUN_STATE_DONE, reason, clock->Now());
  if (!st.ok()) {
    PS_LOG(ERROR) << "cannot finish run " << run_id << ": " << st
                  << " (not acknowledged; the agent sends it again)";
    return;
  }
  PS_LOG(INFO) << "run " << run_id << " on " << device_id
               << " done: " << reason;
  QueueAck(device_id, conn, run_id, msg.attempt(), 0, out);
  if (std::optional<SessionView> v = registry.View(device_id, conn.get());
      v.has_value() && v->foreign_run_id == run_id) {
    registry.SetForeignRun(device_id, conn.get(), 0);
  }
  DispatchLocked(out, device_id);
}

// A finished workload run's result with the incremental energy over the
// device's baseload for its mode, when one was measured (baseload.h).
v1::RunResult Fleet::Impl::WithBaseload(const v1::RunStatus& run,
                                        const v1::RunResult& result) {
  if (!result.ok() || !(result.energy_j() > 0) ||
      run.spec().workload().task() == v1::TASK_BASELOAD) {
    return result;
  }
  absl::StatusOr<std::vector<BaseloadRun>> baseloads =
      LoadBaseloads(store, run.device_id());
  if (!baseloads.ok()) {
    PS_LOG(WARNING) << "run " << run.spec().run_id()
                    << ": no incremental energy stored: " << baseloads.status();
    return result;
  }
  std::optional<BaseloadRun> base = PickBaseload(run, *baseloads);
  if (!base) return result;
  v1::RunResult out = result;
  ApplyBaseload(*base, &out);
  return out;
}

void Fleet::Impl::OnRunFinished(const std::string& device_id,
                                const AgentConnection* conn,
                                const v1::RunFinished& msg) {
  const v1::RunResult& result = msg.result();
  const int64_t run_id = result.run_id();
  Outbox out;
  {
    absl::MutexLock lock(&run_mu);
    std::optional<SessionView> view = registry.View(device_id, conn);
    if (!view) return;
    if (view->current_run_id != run_id && result.ok() &&
        CheckAgentResult(result).ok() &&
        AcceptsLateData(device_id, run_id, msg.attempt())) {
      CompleteLateRunLocked(device_id, view->conn, msg, &out);
    } else if (view->current_run_id != run_id) {
      // Already committed (the ack was lost) or given up on: acknowledge
      // again so the agent drops it; nothing changes.
      PS_LOG(INFO) << "run_finished of run " << run_id << " from " << device_id
                   << " again; acknowledging";
      QueueAck(device_id, view->conn, run_id, msg.attempt(), 0, &out);
      if (view->foreign_run_id == run_id) {
        registry.SetForeignRun(device_id, conn, 0);
        DispatchLocked(&out, device_id);
      }
    } else if (msg.attempt() != 0 && msg.attempt() != view->current_attempt) {
      // The end of an attempt the controller gave up on while the device
      // now holds a newer attempt of the same run: acknowledge, store
      // nothing, keep the new attempt going.
      PS_LOG(INFO) << "dropping run_finished of run " << run_id << " attempt "
                   << msg.attempt() << " from " << device_id
                   << ": the run is on attempt " << view->current_attempt;
      QueueAck(device_id, view->conn, run_id, msg.attempt(), 0, &out);
    } else if (absl::Status bad = CheckAgentResult(result); !bad.ok()) {
      counters.batches_rejected.fetch_add(1, std::memory_order_relaxed);
      FailHeldRunLocked(
          device_id, view->conn, run_id,
          absl::StrCat("agent ", device_id,
                       " sent a run result that cannot be "
                       "stored: ",
                       bad.message(),
                       result.ok() ? ""
                                   : absl::StrCat(" (the run had "
                                                  "failed: ",
                                                  result.reason(), ")")),
          &out);
      QueueAck(device_id, view->conn, run_id, msg.attempt(), 0, &out);
    } else {
      absl::StatusOr<v1::RunStatus> run = store->GetRun(run_id);
      if (!run.ok()) {
        PS_LOG(ERROR) << "cannot read run " << run_id << ": " << run.status()
                      << " (not acknowledged; the agent sends it again)";
        counters.batches_failed.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      absl::StatusOr<std::vector<int64_t>> have = store->ListBatchSeqs(run_id);
      if (!have.ok()) {
        PS_LOG(ERROR) << "cannot list the batches of run " << run_id << ": "
                      << have.status()
                      << " (not acknowledged; the agent sends it again)";
        counters.batches_failed.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      // Complete means batches 1..N, each once; a stored batch beyond N
      // means the agent's count and its sequence numbers disagree.
      const int64_t beyond =
          !have->empty() && have->back() > msg.batches() ? have->back() : 0;
      const std::vector<int64_t> missing =
          beyond == 0 ? MissingSeqs(*have, msg.batches())
                      : std::vector<int64_t>();
      if (msg.batches() < 0 || beyond != 0) {
        counters.batches_rejected.fetch_add(1, std::memory_order_relaxed);
        FailHeldRunLocked(
            device_id, view->conn, run_id,
            msg.batches() < 0
                ? absl::StrCat("agent ", device_id,
                               " reported a negative batch count (",
                               msg.batches(), ")")
                : absl::StrCat("agent ", device_id, " reported ", msg.batches(),
                               " batches for the run, but sent batch ", beyond),
            &out);
        QueueAck(device_id, view->conn, run_id, msg.attempt(), 0, &out);
      } else if (!missing.empty()) {
        Outgoing resend{device_id, view->conn, {}};
        v1::ResendRequest* r = resend.msg.mutable_resend();
        r->set_run_id(run_id);
        r->set_attempt(view->current_attempt);
        for (int64_t seq : missing) r->add_seqs(seq);
        PS_LOG(INFO) << "run " << run_id << " finished on " << device_id
                     << " but " << missing.size() << " of " << msg.batches()
                     << " batches are not stored; asking for them";
        out.push_back(std::move(resend));
      } else {
        FinishLocked(device_id, view->conn, *run, msg, &out);
      }
    }
  }
  Flush(std::move(out));
}

void Fleet::Impl::FinishLocked(const std::string& device_id,
                               const std::shared_ptr<AgentConnection>& conn,
                               const v1::RunStatus& run,
                               const v1::RunFinished& msg, Outbox* out) {
  const v1::RunResult& result = msg.result();
  const int64_t run_id = result.run_id();
  const absl::Time now = clock->Now();
  const v1::RunState final_state =
      result.ok() ? v1::RUN_STATE_DONE : v1::RUN_STATE_FAILED;
  std::string reason;
  if (!result.ok()) {
    reason =
        !result.reason().empty()
            ? result.reason()
            : absl::StrCat("workload failed (exit code ", result.exit_code(),
                           ", signal ", result.term_signal(), ")");
  }
  absl::Status st;
  if (result.ok() && run.state() == v1::RUN_STATE_LEASED) {
    // RunStarted never arrived; the run did run, record it as started.
    st =
        store->TransitionRun(run_id, v1::RUN_STATE_RUNNING, device_id, "", now);
  }
  if (st.ok() && !IsFinal(run.state())) {
    st = store->FinishRun(WithBaseload(run, result), final_state, reason, now);
  }
  if (!st.ok()) {
    PS_LOG(ERROR) << "cannot finish run " << run_id << ": " << st
                  << " (not acknowledged; the agent sends it again)";
    return;
  }
  PS_LOG(INFO) << "run " << run_id << " on " << device_id << " "
               << (result.ok() ? "done" : "failed: " + reason);
  if (!result.ok() && !IsFinal(run.state())) {
    RetryIfAllowed(run.spec(), reason);
  }
  registry.SetCurrentRun(device_id, conn.get(), 0);
  QueueAck(device_id, conn, run_id, msg.attempt(), 0, out);
  DispatchLocked(out, device_id);
}

}  // namespace powersweep
